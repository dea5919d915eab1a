/**
 * A fetch that follows redirects only within the origin (scheme, host and port) of the URL it
 * was given. An http hook's headers carry secrets expanded from the environment, and `fetch`'s
 * own redirect handling drops only `Authorization` when it crosses origins: an `X-Api-Key` would
 * go wherever the server points. So redirects are followed by hand, and one that leaves the
 * origin is refused before anything is sent to its target.
 *
 * Method and body follow the fetch standard: 307 and 308 repeat the request as it was; 303, and
 * 301 or 302 after a POST, become a GET without the body (and without the headers that describe
 * a body).
 */

/** Redirects followed before giving up (browsers allow 20; a hook endpoint needs few). */
export const MAX_REDIRECTS = 10;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Request headers that describe a body, dropped with it (fetch's "request-body-header names"). */
const BODY_HEADERS = ["Content-Encoding", "Content-Language", "Content-Location", "Content-Type"];

/**
 * A redirect that was not followed; the message is whole, naming the hook's URL and the target.
 */
export class RedirectRefused extends Error {
  override readonly name = "RedirectRefused";
}

export interface SameOriginRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  readonly signal: AbortSignal;
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
): Promise<Response> {
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
        `HTTP hook "${url}" was redirected (${status}) to an invalid location "${location}": ` +
          `not followed`,
      );
    }
    if (next.origin !== origin) {
      throw new RedirectRefused(
        `HTTP hook "${url}" was redirected (${status}) to another origin "${originOf(next)}": ` +
          `not followed, so its headers are sent only to "${origin}"; set "url" to the address ` +
          `that answers`,
      );
    }
    // fetch turns a URL's credentials into an `Authorization` header beside the hook's own: only
    // the configured ones (which a relative location keeps) may be sent.
    if (next.username !== configured.username || next.password !== configured.password) {
      throw new RedirectRefused(
        `HTTP hook "${url}" was redirected (${status}) to a location with credentials of its ` +
          `own "${withoutCredentials(next)}": not followed; set "url" to the address that answers`,
      );
    }
    if (redirects === MAX_REDIRECTS) {
      throw new RedirectRefused(
        `HTTP hook "${url}" was redirected more than ${MAX_REDIRECTS} times, last to ` +
          `"${next.href}": not followed further; set "url" to the address that answers`,
      );
    }
    if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
      method = method === "HEAD" ? "HEAD" : "GET";
      body = undefined;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    target = next.href;
  }
}

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
