/**
 * How a grep's matcher process (grep_matcher_process.ts) is started: by `deno run` with no
 * permission at all and no configuration of the project's, or, in the compiled binary, which
 * cannot `deno run`, by the binary itself given `GREP_MATCHER_ARGUMENT` (main.ts).
 */
import { fileURLToPath } from "node:url";
import type { GroupCommand } from "../../os/process/group_child.ts";
import { GREP_MATCHER_ARGUMENT } from "./grep_matcher_process.ts";

/** What the process may have from the agent's environment: where Deno keeps its cache. */
const PASSED_VARIABLES = [
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "PATH",
  "TMPDIR",
  "SystemRoot",
  "USERPROFILE",
  "LOCALAPPDATA",
  "APPDATA",
  "TEMP",
  "TMP",
];

/** How the matcher process is started: by `deno run` with no permission, or the binary itself. */
export function matcherCommand(): GroupCommand {
  if (Deno.build.standalone) return { program: Deno.execPath(), args: [GREP_MATCHER_ARGUMENT] };
  return {
    program: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-config",
      "--no-lock",
      "--no-npm",
      "--no-remote",
      fileURLToPath(new URL("./grep_matcher_process.ts", import.meta.url)),
    ],
  };
}

/** The process's whole environment: the variables above, where set and readable. */
export function matcherEnvironment(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
  for (const name of PASSED_VARIABLES) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // Not granted: the process does without it.
    }
  }
  return env;
}
