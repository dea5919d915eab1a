/**
 * The endpoint's API key is named, never given: a variable's name, checked before anything is
 * sent. Apart from the OpenAI backend so that checking flags does not load the `openai` client.
 */

/** Whether `text` can be an environment variable's name (what a pasted key is not). */
export function isVariableName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);
}

/**
 * Why the variable `apiKeyEnv` cannot give the key, as words that follow where it was named
 * ("--api-key-env names $X, which is not set: ..."); undefined when it can. What is no variable
 * name is never repeated: it may be the key itself.
 */
export function apiKeyEnvProblem(
  apiKeyEnv: string,
  env: (name: string) => string | undefined,
): string | undefined {
  if (!isVariableName(apiKeyEnv)) {
    return "takes a variable's name, and what it was given is none (was the key itself " +
      "pasted? export the key in a variable and name the variable)";
  }
  if (!env(apiKeyEnv)) {
    return `names $${apiKeyEnv}, which is not set: export the key in it, or leave ` +
      "--api-key-env out for a server that needs none";
  }
  return undefined;
}
