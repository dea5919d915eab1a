/**
 * The claude kit on real files: a temp project, local file and shell doors, and the kit whose
 * read state a test builds up call by call.
 */
import { allowedRoots } from "../../src/os/files/allowed_roots.ts";
import { claudeToolKit } from "../../src/agent/tools/claude_tool_kit.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import type { ToolExecution, ToolExecutorDeps, ToolKit } from "../../src/agent/tools/tool_kit.ts";
import type { ToolCapability } from "../../src/profile/tool_identity.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { withTempDir } from "./temp_dir.ts";

const ENV = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };

const CAPABILITIES: Readonly<Record<string, ToolCapability>> = {
  Bash: "shell",
  Read: "fs_read",
  Write: "fs_write",
  Edit: "fs_edit",
  Glob: "fs_glob",
  Grep: "fs_grep",
};

export interface KitProject {
  /** The session cwd (a temp dir, real path). */
  readonly dir: string;
  readonly kit: ToolKit;
  readonly deps: ToolExecutorDeps;
  /** Parses, prechecks and runs a call as the turn does; what the model and hooks would get. */
  call(name: string, input: unknown): Promise<KitCall>;
}

export type KitCall =
  /** Refused before any hook: the model's `<tool_use_error>` text. */
  | { readonly refused: string }
  | {
    readonly refused?: undefined;
    readonly hookInput: unknown;
    readonly execution: ToolExecution;
  };

export async function withKitProject(
  files: Readonly<Record<string, string>>,
  fn: (project: KitProject) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  await withTempDir(files, async (dir) => {
    const roots = await allowedRoots({ launchCwd: dir, home: undefined });
    const deps: ToolExecutorDeps = {
      cwd: dir,
      roots,
      files: new LocalFileAccess({ cwd: dir, roots }),
      shell: new LocalShellRunner({ env: ENV }),
      signal,
    };
    const kit = claudeToolKit();
    await fn({
      dir,
      kit,
      deps,
      async call(name, input) {
        const capability = CAPABILITIES[name];
        assert(capability !== undefined, `not a claude tool: ${name}`);
        const parsed = kit.parse(capability, input, name, dir);
        if (!parsed.ok) return { refused: kit.validationFailure(parsed.message) };
        const problem = await kit.precheck(parsed.operation, deps);
        if (problem !== undefined) return { refused: kit.validationFailure(problem) };
        return {
          hookInput: parsed.hookInput,
          execution: await kit.execute(parsed.operation, deps),
        };
      },
    });
  });
}

/** The call ran (was not refused before hooks); its execution. */
export function ran(call: KitCall): ToolExecution & { readonly hookInput: unknown } {
  assert(call.refused === undefined, `refused before hooks: ${call.refused}`);
  return { ...call.execution, hookInput: call.hookInput };
}

/** Equal as JSON text: the same values and the same key order (what a hook's stdin shows). */
export function assertJson(actual: unknown, expected: unknown): void {
  assertEquals(JSON.stringify(actual, null, 1), JSON.stringify(expected, null, 1));
}
