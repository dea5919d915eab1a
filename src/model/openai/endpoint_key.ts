/**
 * The endpoint's API key is named, never given: a variable's name, checked before anything is
 * sent. Apart from the OpenAI backend so that checking flags does not load the `openai` client.
 *
 * What goes into a header is checked too: a value with a line break or another control
 * character is refused by `fetch`, whose error quotes the whole value, key and all. So such a
 * value stops the agent at start, with a message that names where it came from and never
 * repeats it (header_value.ts).
 */
import { headerValueProblem } from "../../header_value.ts";

/** The variable whose `Name: value` lines the `openai` client adds to every request. */
export const CUSTOM_HEADERS_VARIABLE = "OPENAI_CUSTOM_HEADERS";

/** Whether `text` can be an environment variable's name (what a pasted key is not). */
export function isVariableName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);
}

/**
 * Why the variable `apiKeyEnv` cannot give the key, as words that follow where it was named
 * ("--api-key-env names $X, which is not set: ..."); undefined when it can. Neither what is no
 * variable name (it may be the key itself) nor the variable's value is ever repeated.
 */
export function apiKeyEnvProblem(
  apiKeyEnv: string,
  env: (name: string) => string | undefined,
): string | undefined {
  if (!isVariableName(apiKeyEnv)) {
    return "takes a variable's name, and what it was given is none (was the key itself " +
      "pasted? export the key in a variable and name the variable)";
  }
  const key = env(apiKeyEnv);
  if (!key) {
    return `names $${apiKeyEnv}, which is not set: export the key in it, or leave ` +
      "--api-key-env out for a server that needs none";
  }
  const problem = headerValueProblem(key);
  return problem === undefined ? undefined : `names $${apiKeyEnv}, whose value ${problem}`;
}

/**
 * The headers `OPENAI_CUSTOM_HEADERS` adds, read as the `openai` client reads them: one
 * `Name: value` per line, both trimmed; a line without a colon is skipped.
 */
export function customHeaders(
  env: (name: string) => string | undefined,
): { readonly name: string; readonly value: string }[] {
  const text = env(CUSTOM_HEADERS_VARIABLE)?.trim();
  if (!text) return [];
  return text.split("\n").flatMap((line) => {
    const colon = line.indexOf(":");
    return colon < 0
      ? []
      : [{ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() }];
  });
}

/** Why a header of `OPENAI_CUSTOM_HEADERS` cannot be sent; undefined when all can. */
export function customHeadersProblem(
  env: (name: string) => string | undefined,
): string | undefined {
  for (const { name, value } of customHeaders(env)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      return `${CUSTOM_HEADERS_VARIABLE} has a line whose header name is not one (a name is ` +
        'letters, digits and "-" before the ":"): fix that line';
    }
    const problem = headerValueProblem(value);
    if (problem !== undefined) {
      return `${CUSTOM_HEADERS_VARIABLE}: the value of header "${name}" ${problem}`;
    }
  }
  return undefined;
}

/**
 * The values that must never be shown: the key and every custom header's value. The agent
 * writes each one as `[redacted]` wherever a server repeats it (secret_redactor.ts).
 */
export function endpointSecrets(
  apiKeyEnv: string | undefined,
  env: (name: string) => string | undefined,
): string[] {
  const key = apiKeyEnv === undefined ? undefined : env(apiKeyEnv);
  return [...(key ? [key] : []), ...customHeaders(env).map((header) => header.value)];
}
