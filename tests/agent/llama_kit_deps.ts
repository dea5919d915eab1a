/**
 * The llama kit on real files: local file and shell doors rooted at a temp project, and a call
 * parsed and run as the turn does.
 */
import { llamaToolKit } from "../../src/agent/tools/llama_tool_kit.ts";
import { LocalFileAccess } from "../../src/agent/files/local_file_access.ts";
import { LocalShellRunner } from "../../src/agent/shell/local_shell_runner.ts";
import {
  failedExecution,
  type ToolExecution,
  type ToolExecutorDeps,
} from "../../src/agent/tools/tool_kit.ts";
import type { ToolCapability } from "../../src/profile/tool_identity.ts";

export function localDeps(cwd: string): ToolExecutorDeps {
  return {
    cwd,
    roots: [cwd],
    files: new LocalFileAccess({ cwd, roots: [cwd] }),
    shell: new LocalShellRunner({ env: {} }),
  };
}

/** Parses and runs a call; bad input is the failed call the model would read. */
export async function runLlamaTool(
  capability: ToolCapability,
  input: unknown,
  deps: ToolExecutorDeps,
  name: string = capability,
): Promise<ToolExecution> {
  const kit = llamaToolKit();
  const parsed = kit.parse(capability, input, name, deps.cwd);
  return parsed.ok ? await kit.execute(parsed.operation, deps) : failedExecution(parsed.message);
}
