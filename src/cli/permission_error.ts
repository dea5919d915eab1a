/**
 * Turns Deno's permission failure into words a user can act on: llama-agent may only touch the
 * directory it was launched in and the home directory. Deno's own advice ("run again with the
 * --allow-read flag") names a flag llama-agent does not have.
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
  return `Cannot ${access} "${path}": llama-agent may only use files under ` +
    `${readableRoots(launchDir, undefined)}; start it from a directory that contains this path`;
}

export { isOutsideGrant } from "../outside_grant.ts";

/**
 * For a file the user named (`--model`, `--rules`) outside what llama-agent may read: where it
 * may read, and the two ways out.
 */
export function readableRootsAdvice(
  launchDir: string | undefined,
  home: string | undefined,
): string {
  return `llama-agent may only read files under ${readableRoots(launchDir, home)}; move the ` +
    "file under one of them, or start llama-agent from a directory that contains it";
}

function readableRoots(launchDir: string | undefined, home: string | undefined): string {
  const launch = launchDir === undefined
    ? "the directory it was started in"
    : `"${launchDir}" (where it was started)`;
  return `${launch} and your home directory${home ? ` "${home}"` : ""}`;
}
