/**
 * Whether the process may use `$HOME`, where llama-agent keeps its settings, transcripts and
 * model cache, checked at start so that a `$HOME` the agent may not use is refused with what to
 * do instead of failing later on the first file. How it was started decides what to say:
 * `bin/llama-agent` grants exactly the `$HOME` it starts with (or refuses one it cannot express to
 * Deno); a compiled binary's grant is fixed when it is built (the launch directory and the
 * directories that usually hold homes).
 */

export type PermissionQuery = (descriptor: Deno.PermissionDescriptor) => Deno.PermissionState;

const denoQuery: PermissionQuery = (descriptor) => Deno.permissions.querySync(descriptor).state;

export interface HomeAccessOptions {
  /** The install directory of the `bin/llama-agent` that started this process, if one did. */
  readonly launcherDir?: string;
  readonly query?: PermissionQuery;
}

export function homeAccessProblem(
  home: string | undefined,
  options: HomeAccessOptions = {},
): string | undefined {
  if (home === undefined || home === "") return undefined;
  // Deno resolves a relative path against the launch directory: the agent's settings and
  // transcripts would land in whatever project it runs in.
  if (!isAbsolute(home)) {
    return `HOME is "${home}", a relative path: set it to the absolute path of your home directory`;
  }
  const query = options.query ?? denoQuery;
  const blocked = (["read", "write"] as const).filter((name) =>
    query({ name, path: home }) !== "granted"
  );
  if (blocked.length === 0) return undefined;
  const cannot = `cannot ${blocked.join(" and ")} your home directory "${home}"`;
  if (options.launcherDir !== undefined) {
    return `${cannot}: "${options.launcherDir}/bin/llama-agent" asked Deno for exactly this ` +
      "directory and Deno did not grant it; run llama-agent with the Deno it pins (unset " +
      "LLAMA_AGENT_DENO)";
  }
  return `${cannot}: this llama-agent binary may only use the directory it is started in and ` +
    "the usual home directories (/home and /root on Linux, /Users on macOS, C:\\Users on " +
    "Windows). Set HOME to a directory under one of those, or install llama-agent with npm " +
    "(bin/llama-agent grants exactly your $HOME)";
}

export interface LaunchVariables {
  /** `LLAMA_AGENT_INSTALL_DIR`. */
  readonly installDir: string | undefined;
  /** `LLAMA_AGENT_LAUNCH_DIR`. */
  readonly launchDir: string | undefined;
  /** The process's working directory. */
  readonly cwd: string;
  /** The URL of the running main module's directory. */
  readonly mainDir: string;
}

/**
 * The install directory of the `bin/llama-agent` that started this process, or undefined when it
 * was not (a compiled binary, or `deno run main.ts`). The launcher sets `LLAMA_AGENT_INSTALL_DIR`
 * and `LLAMA_AGENT_LAUNCH_DIR`, but every program started under it inherits them, a compiled
 * llama-agent too: they count only when the running main module is the one in that install
 * directory and the process still runs in that launch directory.
 */
export function launcherDir(variables: LaunchVariables): string | undefined {
  const { installDir, launchDir, cwd, mainDir } = variables;
  if (!installDir || launchDir !== cwd) return undefined;
  const url = new URL(mainDir);
  if (url.protocol !== "file:") return undefined;
  return decodeURIComponent(url.pathname) === `${installDir}/` ? installDir : undefined;
}

// node:path's rule without loading node:path (about 15 ms of start-up, before every command): a
// separator first, or on Windows a drive and a separator.
const ABSOLUTE = Deno.build.os === "windows" ? /^(?:[A-Za-z]:)?[\\/]/ : /^\//;

function isAbsolute(path: string): boolean {
  return ABSOLUTE.test(path);
}
