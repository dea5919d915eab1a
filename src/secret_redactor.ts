/**
 * What a model server or an http hook's endpoint says goes to the client, stderr and the
 * transcript, and a server may repeat what it was sent: an error that quotes the request's
 * headers carries the key. Every text from the server, and every error about a request, passes
 * through here first: each secret (the key, a header's value, a variable expanded into one)
 * becomes `[redacted]`, and quoted server text is cut to a few hundred characters.
 *
 * A secret shorter than `MIN_SECRET_LENGTH` is not looked for: a key of "x" would otherwise
 * take every "x" out of the answers.
 */

export const REDACTED = "[redacted]";

/** Secrets shorter than this are not redacted (too common to find only where they were sent). */
export const MIN_SECRET_LENGTH = 8;

/** Characters of a server's own words quoted in a message. */
export const SERVER_TEXT_LIMIT = 400;

export class SecretRedactor {
  /** Longest first: a secret that holds another is replaced whole. */
  readonly #secrets: readonly string[];

  constructor(secrets: readonly string[]) {
    this.#secrets = [...new Set(secrets)]
      .filter((secret) => secret.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.#secrets) result = result.replaceAll(secret, REDACTED);
    return result;
  }

  /**
   * A redactor for text that arrives in pieces, where a secret may be split between two: each
   * piece's text is returned as soon as it cannot be the start of a secret, and the held back
   * end comes with the next piece or with `end()`.
   */
  pieces(): PieceRedactor {
    return new PieceRedactor(this);
  }

  /** The length of the longest end of `text` that begins some secret (0 for none). */
  partialSecretAtEnd(text: string): number {
    for (let length = Math.min(text.length, this.#longest() - 1); length > 0; length--) {
      const end = text.slice(text.length - length);
      if (this.#secrets.some((secret) => secret.startsWith(end))) return length;
    }
    return 0;
  }

  #longest(): number {
    return this.#secrets[0]?.length ?? 0;
  }
}

export class PieceRedactor {
  #held = "";

  constructor(private readonly redactor: SecretRedactor) {}

  /** The text of `piece` (and what was held before it) that can be shown now. */
  push(piece: string): string {
    const text = this.redactor.redact(this.#held + piece);
    const hold = this.redactor.partialSecretAtEnd(text);
    this.#held = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  /** What was held back: the pieces have ended. */
  end(): string {
    const rest = this.#held;
    this.#held = "";
    return rest;
  }
}

/**
 * A server's text as a message quotes it: secrets redacted, whitespace runs made one space, and
 * cut after `limit` characters with the count of the rest.
 */
export function quotedServerText(
  text: string,
  redactor: SecretRedactor,
  limit = SERVER_TEXT_LIMIT,
): string {
  return cutServerText(redactor.redact(text), limit);
}

/**
 * Text as a message quotes it, whitespace runs made one space and cut after `limit` characters
 * with the count of the rest, with no secret looked for: redact first (`quotedServerText`), as
 * a secret cut in two is no longer found whole.
 */
export function cutServerText(text: string, limit = SERVER_TEXT_LIMIT): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= limit) return flat;
  return `${flat.slice(0, limit)}... (${flat.length - limit} more characters)`;
}
