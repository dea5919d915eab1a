/**
 * The tools of one prompt turn: what the model is offered, and where each capability runs — the
 * client's `fs/*` and `terminal/*` when it advertised them, locally otherwise. Files are kept to
 * the allowed roots either way, but not equally: a local open verifies what it opened, so a path
 * swapped mid-call leads nowhere (exactly where libc can be used, see confined_opener.ts); a path
 * for the client is checked by name before the request, and a swap between that check and the
 * client's own open is the client's to defend (client_file_access.ts).
 */
import { dirname, join, resolve } from "node:path";
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import { confinePath } from "../../os/files/allowed_roots.ts";
import { ClientFileAccess } from "../../agent/files/client_file_access.ts";
import type { ClientRequest } from "../../agent/client_request.ts";
import { ClientShellRunner } from "../../agent/shell/client_shell_runner.ts";
import type {
  FileAccess,
  FileReadOptions,
  FileWriteOptions,
} from "../../agent/files/file_access.ts";
import { LocalFileAccess } from "../../agent/files/local_file_access.ts";
import { LocalShellRunner } from "../../agent/shell/local_shell_runner.ts";
import { type ShellRunner, withSessionEnv } from "../../agent/shell/shell_runner.ts";
import { shellProgram } from "../../agent/shell/shell_program.ts";
import { ShellSession, shellStyleUnder } from "../../agent/shell/shell_session.ts";
import { toolFormFor } from "../../agent/tools/tool_kit.ts";
import type { ToolDefinition } from "../../model/model.ts";
import type { AgentConfig } from "../agent_config.ts";
import type { AgentSession } from "../session/agent_session.ts";

export interface ToolPlaces {
  readonly files: FileAccess;
  readonly shell: ShellRunner;
  /** The allowed roots, resolved: where glob and grep may walk. */
  readonly roots: readonly string[];
}

export interface ToolSet extends ToolPlaces {
  /**
   * The built-in tools as offered to a model whose context holds `contextSize` tokens: lean in
   * a small context (tool_kit.ts `toolFormFor`), full otherwise.
   */
  definitions(contextSize: number | undefined): readonly ToolDefinition[];
}

export function toolSetFor(
  session: AgentSession,
  config: AgentConfig,
  capabilities: ClientCapabilities,
  client: AgentContext,
): ToolSet {
  const request: ClientRequest = (method, params, options) =>
    client.request(method, params, { cancellationSignal: options?.signal });
  const roots = session.roots;
  const local = new LocalFileAccess({ cwd: session.cwd, roots });
  const remote = new ClientFileAccess({ sessionId: session.id, cwd: session.cwd, request });
  const fs = capabilities.fs ?? {};
  // Each direction is chosen on its own: a client may serve reads but not writes.
  const files: FileAccess = {
    readTextFile: async (path: string, options: FileReadOptions) => {
      if (!fs.readTextFile) return await local.readTextFile(path, options);
      const refused = await outsideRoots(path, "read", session.cwd, roots);
      return refused ?? await remote.readTextFile(path, options);
    },
    writeTextFile: async (path: string, content: string, options: FileWriteOptions) => {
      if (!fs.writeTextFile) return await local.writeTextFile(path, content, options);
      const refused = await outsideRoots(path, "write", session.cwd, roots);
      return refused ?? await remote.writeTextFile(path, content, options);
    },
  };
  const runner: ShellRunner = capabilities.terminal
    ? new ClientShellRunner({ sessionId: session.id, request, env: config.shellEnv })
    : config.localShell ?? new LocalShellRunner({ env: config.shellEnv });
  // The profile's shell, in the session's current directory, which it follows where it keeps it.
  const shellEnv = config.shellEnv ?? { SHELL: Deno.env.get("SHELL"), PATH: Deno.env.get("PATH") };
  const shell = new ShellSession(withSessionEnv(runner, session.sessionEnv), {
    style: shellStyleUnder(session.toolKit.profile.shell, config.env),
    directory: session.workingDirectory,
    reportDir: join(dirname(resolve(session.transcript.path)), "shell"),
    program: (choice) => shellProgram(choice, shellEnv),
    log: session.log,
  });
  return {
    definitions: (contextSize) => session.toolKit.definitions(toolFormFor(contextSize)),
    files,
    shell,
    roots,
  };
}

/**
 * The editor would serve any path it can open, but the model gets the same reach whichever side
 * does the I/O: the allowed roots. (An auto-approved read must not fetch ~/.ssh through the editor.)
 */
async function outsideRoots(
  path: string,
  verb: "read" | "write",
  cwd: string,
  roots: readonly string[],
): Promise<{ ok: false; failure: "refused"; message: string } | undefined> {
  const confined = await confinePath(path, { cwd, roots });
  if (confined.ok) return undefined;
  return { ok: false, failure: "refused", message: `Cannot ${verb} "${path}": ${confined.reason}` };
}
