/**
 * A fetch that follows redirects only within the origin (scheme, host and port) of the URL it
 * was given. An http hook's headers carry secrets expanded from the environment, and `fetch`'s
 * own redirect handling drops only `Authorization` when it crosses origins: an `X-Api-Key` would
 * go wherever the server points. So redirects are followed by hand, and one that leaves the
 * origin is refused before anything is sent to its target. A model server's requests (the key,
 * custom headers and the whole conversation) take the same road, with their own wording.
 *
 * Method and body follow the fetch standard: 307 and 308 repeat the request as it was; 303, and
 * 301 or 302 after a POST, become a GET without the body (and without the headers that describe
 * a body), unless the policy keeps the method (an API has nothing to GET where it POSTs).
 *
 * Where a redirect pointed is the server's text: a message quotes it with the policy's secrets
 * redacted and cut to a few hundred characters (secret_redactor.ts), as a `Location` may be
 * kilobytes long or repeat what the server was sent.
 */
import { quotedServerText, SecretRedactor } from "./secret_redactor.ts";

/** Redirects followed before giving up (browsers allow 20; a hook endpoint needs few). */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Request headers that describe a body, dropped with it (fetch's "request-body-header names"). */
const BODY_HEADERS = ["Content-Encoding", "Content-Language", "Content-Location", "Content-Type"];

/**
 * A redirect that was not followed; the message names the hook's URL and the target (redacted
 * and cut).
 */
export class RedirectRefused extends Error {
  override readonly name = "RedirectRefused";
}

export interface SameOriginRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly body: string | Uint8Array<ArrayBuffer> | undefined;
  readonly signal: AbortSignal;
}

/** How redirects are followed and worded; an http hook's when absent. */
export interface RedirectPolicy {
  /** What was redirected, first in every message: `HTTP hook "URL"`. */
  readonly subject: string;
  /** What is kept from other origins: `its headers` (are sent only to the origin). */
  readonly kept: string;
  /** What to do instead, last in the message: `set "url" to the address that answers`. */
  readonly advice: string;
  /** Every redirect repeats the method and body (no 301/302/303 turned into a GET). */
  readonly keepMethod?: boolean;
  /** Takes the secrets sent out of where a redirect pointed; none are looked for when absent. */
  readonly redactor?: SecretRedactor;
}

/** An http hook's policy; `redactor` holds the values its headers send. */
export function hookRedirectPolicy(url: string, redactor?: SecretRedactor): RedirectPolicy {
  return {
    subject: `HTTP hook "${url}"`,
    kept: "its headers",
    advice: `set "url" to the address that answers`,
    redactor,
  };
}

/**
 * Sends `request` to `url` and follows same-origin redirects; returns the first response that is
 * not a redirect (a redirect status without `Location` is such a response). Throws
 * `RedirectRefused` for a redirect to another origin, to an invalid location, to one with
 * credentials (`user:password@`) other than the configured URL's, or past `MAX_REDIRECTS`, and
 * whatever `fetchImpl` throws.
 */
export async function fetchSameOrigin(
  fetchImpl: typeof fetch,
  url: string,
  request: SameOriginRequest,
  policy: RedirectPolicy = hookRedirectPolicy(url),
): Promise<Response> {
  const { subject, kept, advice } = policy;
  const redactor = policy.redactor ?? NO_SECRETS;
  const quoted = (text: string) => quotedServerText(text, redactor);
  const configured = new URL(url);
  const { origin } = configured;
  let target = url;
  let { method, body } = request;
  const headers = new Headers(request.headers);
  for (let redirects = 0;; redirects++) {
    const response = await fetchImpl(target, {
      method,
      headers,
      body,
      signal: request.signal,
      redirect: "manual",
    });
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();

    const { status } = response;
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      throw new RedirectRefused(
        `${subject} was redirected (${status}) to an invalid location "${
          quoted(location)
        }": not followed`,
      );
    }
    if (next.origin !== origin) {
      throw new RedirectRefused(
        `${subject} was redirected (${status}) to another origin "${quoted(originOf(next))}": ` +
          `not followed, so ${kept} are sent only to "${origin}"; ${advice}`,
      );
    }
    // fetch turns a URL's credentials into an `Authorization` header beside the hook's own: only
    // the configured ones (which a relative location keeps) may be sent.
    if (next.username !== configured.username || next.password !== configured.password) {
      throw new RedirectRefused(
        `${subject} was redirected (${status}) to a location with credentials of its own ` +
          `"${quoted(withoutCredentials(next))}": not followed; ${advice}`,
      );
    }
    if (redirects === MAX_REDIRECTS) {
      throw new RedirectRefused(
        `${subject} was redirected more than ${MAX_REDIRECTS} times, last to ` +
          `"${quoted(next.href)}": not followed further; ${advice}`,
      );
    }
    const becomesGet = status === 303 || ((status === 301 || status === 302) && method === "POST");
    if (becomesGet && policy.keepMethod !== true) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    target = next.href;
  }
}

const NO_SECRETS = new SecretRedactor([]);

function withoutCredentials(url: URL): string {
  const shown = new URL(url);
  shown.username = "";
  shown.password = "";
  return shown.href;
}

/** An origin to name in a message; `file:` and other opaque origins are named by scheme. */
function originOf(url: URL): string {
  return url.origin === "null" ? url.protocol : url.origin;
}
