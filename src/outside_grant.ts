/**
 * Deno refusing a path outside what llama-agent may use (the directory it was started in and the
 * home directory; its install, read only), said in llama-agent's words. Deno's own ("run again
 * with the --allow-read flag") names a flag llama-agent does not have.
 */

/** Whether `error` is Deno refusing a path outside the granted roots (not the OS refusing it). */
export function isOutsideGrant(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable ||
    (error instanceof Deno.errors.PermissionDenied &&
      /Requires (read|write) access/.test(error.message));
}

/**
 * Such a refusal as llama-agent says it (`llama-agent may not read "<path>": it may only use
 * files under the directory it was started in and your home directory "<home>"`), or undefined
 * for any other error. What to do about it is the caller's to add: it knows what the path is.
 */
export function outsideGrantWords(error: unknown, home?: string): string | undefined {
  if (!isOutsideGrant(error)) return undefined;
  const match = /Requires (read|write) access to "([^"]+)"/.exec(
    error instanceof Error ? error.message : "",
  );
  const what = match === null ? "use this path" : `${match[1]} "${match[2]}"`;
  return `llama-agent may not ${what}: it may only use files under the directory it was ` +
    `started in and your home directory${home ? ` "${home}"` : ""}`;
}
