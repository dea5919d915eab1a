/**
 * An http hook's headers, built before anything is sent: `$VAR` and `${VAR}` in each value
 * expanded for the names in `allowedEnvVars`, then each name and value checked for what `fetch`
 * refuses. `fetch`'s own error would quote the whole value, and a value holds what was expanded
 * into it (a token), so a header that cannot be sent stops the run with a message that names the
 * header and where the character came from (the variable, or the settings), never the value.
 *
 * What the headers send is also what the hook's messages must never show: the values come back
 * as the secrets to redact (secret_redactor.ts).
 */
import {
  refusedCharacterWords,
  refusedHeaderCharacter,
  variableValueProblemAt,
} from "../../header_value.ts";
import type { HttpHandlerConfig } from "../handler_config.ts";

export type HookHeaders =
  | {
    readonly ok: true;
    readonly headers: Headers;
    /** Each header's value as sent, each variable expanded into one, and the URL's password. */
    readonly secrets: readonly string[];
  }
  | { readonly ok: false; readonly message: string; readonly secrets: readonly string[] };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** A header name: a token (RFC 9110), what `fetch` takes. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What `fetch` trims from both ends of a value before checking it. */
const EDGE_WHITESPACE = /^[\t\n\r ]*|[\t\n\r ]*$/g;

/** A run of a value as written in the settings, or what one variable expanded to. */
interface Piece {
  readonly text: string;
  /** The variable this piece is the value of; undefined for text written in the settings. */
  readonly variable?: string;
  /** Where the piece starts in the value as written in the settings. */
  readonly written: number;
}

/**
 * Expands `$VAR` and `${VAR}` for the names in `allowed`; any other name becomes "", as in
 * Claude Code, so a header can never leak a variable the user did not list.
 */
export function expandHeaderValue(
  value: string,
  allowed: readonly string[],
  env: Readonly<Record<string, string>>,
): string {
  return expandPieces(value, allowed, env).map((piece) => piece.text).join("");
}

/** The headers of `handler` with `env` expanded into them, or why one cannot be sent. */
export function hookHeaders(
  handler: HttpHandlerConfig,
  env: Readonly<Record<string, string>>,
): HookHeaders {
  const headers = new Headers();
  const secrets: string[] = [];
  const cannot = (name: string, why: string): HookHeaders => ({
    ok: false,
    message: `HTTP hook "${handler.url}" cannot send header "${name}": ${why}`,
    secrets: [...secrets, ...urlPassword(handler.url)],
  });
  for (const [name, written] of Object.entries(handler.headers ?? {})) {
    if (!HEADER_NAME.test(name)) {
      return cannot(
        name,
        'a header name is letters, digits and "-" (no spaces or ":"): fix it in the settings',
      );
    }
    const pieces = expandPieces(written, handler.allowedEnvVars ?? [], env);
    const problem = valueProblem(written, pieces);
    if (problem !== undefined) return cannot(name, problem);
    const value = pieces.map((piece) => piece.text).join("");
    headers.set(name, value);
    secrets.push(value.replace(EDGE_WHITESPACE, ""));
    for (const piece of pieces) if (piece.variable !== undefined) secrets.push(piece.text);
  }
  return { ok: true, headers, secrets: [...secrets, ...urlPassword(handler.url)] };
}

function expandPieces(
  value: string,
  allowed: readonly string[],
  env: Readonly<Record<string, string>>,
): Piece[] {
  const pieces: Piece[] = [];
  let written = 0;
  for (const match of value.matchAll(VARIABLE)) {
    if (match.index > written) {
      pieces.push({ text: value.slice(written, match.index), written });
    }
    const variable = match[1] ?? match[2] ?? "";
    const text = allowed.includes(variable) ? env[variable] ?? "" : "";
    pieces.push({ text, variable, written: match.index });
    written = match.index + match[0].length;
  }
  if (written < value.length) pieces.push({ text: value.slice(written), written });
  return pieces;
}

/**
 * Why the expanded `pieces` of the value `written` in the settings cannot be sent; undefined
 * when they can. Whitespace at either end of the whole value is trimmed by `fetch` and is no
 * problem; a line break anywhere else is.
 */
function valueProblem(written: string, pieces: readonly Piece[]): string | undefined {
  const value = pieces.map((piece) => piece.text).join("");
  const start = /^[\t\n\r ]*/.exec(value)?.[0].length ?? 0;
  const end = value.length - (/[\t\n\r ]*$/.exec(value.slice(start))?.[0].length ?? 0);
  const found = refusedHeaderCharacter(value.slice(start, end), "field");
  if (found < 0) return undefined;
  let at = start + found;
  for (const piece of pieces) {
    if (at >= piece.text.length) {
      at -= piece.text.length;
      continue;
    }
    return piece.variable === undefined
      ? `its value in the settings holds ${
        refusedCharacterWords(written, piece.written + at)
      }: remove it from the settings`
      : `the value of $${piece.variable} ${variableValueProblemAt(piece.text, at)}`;
  }
  return undefined;
}

/** The URL's password, as written and decoded: a message names the URL. */
function urlPassword(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const { password } = new URL(url);
  if (password === "") return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}
