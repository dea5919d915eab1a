/**
 * Turns Deno's permission failure into words a user can act on: llama-agent may only touch the
 * directory it was launched in and the home directory.
 */

export function describePermissionError(
  error: unknown,
  launchDir: string | undefined,
): string | undefined {
  if (!(error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)) {
    return undefined;
  }
  const match = /Requires (read|write) access to "([^"]+)"/.exec(error.message);
  if (match === null) return `Not allowed: ${error.message}`;
  const [, access, path] = match;
  const roots = launchDir === undefined
    ? "the directory it was started in and your home directory"
    : `"${launchDir}" (where it was started) and your home directory`;
  return `Cannot ${access} "${path}": llama-agent may only use files under ${roots}; ` +
    `start it from a directory that contains this path`;
}
