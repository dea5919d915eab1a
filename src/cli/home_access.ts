/**
 * Whether the process may use `$HOME`, where llama-agent keeps its settings, transcripts and
 * model cache. Under `bin/llama-agent` it always may; a compiled binary's grant is fixed when it
 * is built (the launch directory and the directories that usually hold homes), so a `$HOME`
 * elsewhere is refused at start, with what to do, instead of failing later on the first file.
 */

export type PermissionQuery = (descriptor: Deno.PermissionDescriptor) => Deno.PermissionState;

const denoQuery: PermissionQuery = (descriptor) => Deno.permissions.querySync(descriptor).state;

export function homeAccessProblem(
  home: string | undefined,
  query: PermissionQuery = denoQuery,
): string | undefined {
  if (home === undefined || home === "") return undefined;
  const blocked = (["read", "write"] as const).filter((name) =>
    query({ name, path: home }) !== "granted"
  );
  if (blocked.length === 0) return undefined;
  return `cannot ${blocked.join(" and ")} your home directory "${home}": this llama-agent ` +
    "binary may only use the directory it is started in and the usual home directories " +
    "(/home and /root on Linux, /Users on macOS, C:\\Users on Windows). Set HOME to a " +
    "directory under one of those, or install llama-agent with npm (bin/llama-agent grants " +
    "exactly your $HOME)";
}
