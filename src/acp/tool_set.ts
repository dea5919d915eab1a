/**
 * The tools of one prompt turn: what the model is offered, and where each capability runs — the
 * client's `fs/*` and `terminal/*` when it advertised them, locally (confined) otherwise.
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import { allowedRoots } from "../agent/allowed_roots.ts";
import { ClientFileAccess } from "../agent/client_file_access.ts";
import type { ClientRequest } from "../agent/client_request.ts";
import { ClientShellRunner } from "../agent/client_shell_runner.ts";
import type { FileAccess, FileReadOptions, FileWriteOptions } from "../agent/file_access.ts";
import { LocalFileAccess } from "../agent/local_file_access.ts";
import { LocalShellRunner } from "../agent/local_shell_runner.ts";
import type { ShellRunner } from "../agent/shell_runner.ts";
import { toolDefinitions } from "../agent/tool_input.ts";
import type { ToolDefinition } from "../model/model.ts";
import type { AgentConfig } from "./agent_config.ts";
import type { AgentSession } from "./agent_session.ts";

export interface ToolPlaces {
  readonly files: FileAccess;
  readonly shell: ShellRunner;
}

export interface ToolSet extends ToolPlaces {
  readonly definitions: readonly ToolDefinition[];
}

export async function toolSetFor(
  session: AgentSession,
  config: AgentConfig,
  capabilities: ClientCapabilities,
  client: AgentContext,
): Promise<ToolSet> {
  const request: ClientRequest = (method, params, options) =>
    client.request(method, params, { cancellationSignal: options?.signal });
  const roots = await allowedRoots({
    launchCwd: config.launchCwd,
    home: config.home,
    additionalDirectories: session.additionalDirectories,
  });
  const local = new LocalFileAccess({ cwd: session.cwd, roots });
  const remote = new ClientFileAccess({ sessionId: session.id, cwd: session.cwd, request });
  const fs = capabilities.fs ?? {};
  // Each direction is chosen on its own: a client may serve reads but not writes.
  const files: FileAccess = {
    readTextFile: (path: string, options: FileReadOptions) =>
      (fs.readTextFile ? remote : local).readTextFile(path, options),
    writeTextFile: (path: string, content: string, options: FileWriteOptions) =>
      (fs.writeTextFile ? remote : local).writeTextFile(path, content, options),
  };
  const shell: ShellRunner = capabilities.terminal
    ? new ClientShellRunner({ sessionId: session.id, request })
    : new LocalShellRunner({});
  return { definitions: toolDefinitions(), files, shell };
}
