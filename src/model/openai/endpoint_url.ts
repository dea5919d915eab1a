/**
 * The form an endpoint's URL must have, and how a URL that may carry a secret is shown. Apart
 * from the OpenAI backend so that checking flags does not load the `openai` client.
 */

/**
 * Why `value` cannot be an endpoint, as words that follow where it was given ("--endpoint must
 * ..."); undefined when it can. A user, password, query or fragment never passes: a key does
 * not hide in the URL, and what the URL carries is never repeated.
 */
export function endpointUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `takes a URL such as http://localhost:11434/v1, got "${value}"`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `takes an http:// or https:// URL, got "${shownEndpoint(value)}"`;
  }
  if (url.search !== "" || url.hash !== "") {
    return "must be the server's base URL, without a ?query or #fragment (a key goes in a " +
      "variable: --api-key-env VAR)";
  }
  if (url.username !== "" || url.password !== "") {
    return "must not carry a user or password: put the key in a variable and pass " +
      "--api-key-env VAR";
  }
  return undefined;
}

/**
 * `value` as it may be shown: a URL's user and password, query and fragment each become `***`
 * (any may be a key); what is no URL is shown as given.
 */
export function shownEndpoint(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.username === "" && url.password === "" && url.search === "" && url.hash === "") {
    return value;
  }
  const credentials = url.username !== "" || url.password !== "" ? "***@" : "";
  const host = url.host === "" ? "" : `//${credentials}${url.host}`;
  const query = url.search === "" ? "" : "?***";
  const fragment = url.hash === "" ? "" : "#***";
  return `${url.protocol}${host}${url.pathname}${query}${fragment}`;
}
