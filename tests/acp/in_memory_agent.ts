/**
 * The agent wired to an SDK client in memory (no process): a temporary launch directory and
 * HOME, a scripted model, and a client whose answers each test chooses. Most protocol
 * behaviour is specified here; tests/e2e runs the same over real stdio.
 */
import { compatProfile, type CompatProfileId } from "../../src/profile/compat_profile.ts";
import * as acp from "@agentclientprotocol/sdk";
import type {
  ClientCapabilities,
  McpServer,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from "@agentclientprotocol/sdk";
import { createAgentApp } from "../../src/acp/agent_app.ts";
import { createHandlerRunner } from "../../src/hooks/handlers/handler_dispatch.ts";
import { createModelEvaluator } from "../../src/acp/model_evaluator.ts";
import type { AgentConfig } from "../../src/acp/agent_config.ts";
import { createModelProvider } from "../../src/acp/model_provider.ts";
import type { PermissionModeId } from "../../src/agent/permissions/permission_policy.ts";
import type { PermissionRule } from "../../src/agent/permissions/permission_rules.ts";
import type { Model } from "../../src/model/model.ts";
import { type ModelScript, scriptedModel } from "../../src/model/scripted/scripted_model.ts";
import { withoutParagraphBreaks } from "../../src/acp/session/message_paragraphs.ts";

/**
 * The texts of the notices among `updates` (agent text marked `_meta["llama-agent/notice"]`), in
 * order, for one session or all.
 */
export function noticesOf(updates: readonly SessionNotification[], sessionId?: string): string[] {
  // Each session's thread on its own: a break depends on what that session showed before.
  const threads = sessionId === undefined
    ? [...new Set(updates.map((u) => u.sessionId))]
    : [sessionId];
  const said = threads.flatMap((id) =>
    withoutParagraphBreaks(updates.filter((u) => u.sessionId === id))
  );
  return said.flatMap(({ update }) =>
    update.sessionUpdate === "agent_message_chunk" &&
      update._meta?.["llama-agent/notice"] === true && update.content.type === "text"
      ? [update.content.text]
      : []
  );
}

/**
 * Client handlers for `fs/*` that never touch the disk: every read answers `buffer` (an editor's
 * unsaved text), every write changes nothing; each is recorded in `calls` as `read <path>` or
 * `write <path> <content>`.
 */
export function clientFs(calls: string[], buffer: string): (client: acp.ClientApp) => void {
  return (client) =>
    client
      .onRequest("fs/read_text_file", ({ params }) => {
        calls.push(`read ${params.path}`);
        return { content: buffer };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        calls.push(`write ${params.path} ${params.content}`);
        return {};
      });
}

export interface InMemoryOptions {
  readonly script?: ModelScript;
  readonly model?: () => Promise<Model>;
  /** Files of the project (the session cwd), e.g. `.claude/settings.json`. */
  readonly files?: Readonly<Record<string, string>>;
  /** Files of HOME, e.g. `.claude/settings.json`. */
  readonly homeFiles?: Readonly<Record<string, string>>;
  /** Runs the hook handlers (real subprocesses by default). */
  readonly hookRunner?: AgentConfig["hookRunner"];
  readonly observeFiring?: AgentConfig["observeFiring"];
  /** The script that answers prompt and agent hooks (by default, the session's model). */
  readonly evaluatorScript?: ModelScript;
  readonly mode?: PermissionModeId;
  readonly rules?: readonly PermissionRule[];
  readonly maxToolRounds?: number;
  /** When to compact, what a tool result may take, the answer cap (the defaults when absent). */
  readonly contextBudget?: AgentConfig["contextBudget"];
  /** How the agent presents itself to hooks (default: llama). */
  readonly profile?: CompatProfileId;
  /** `--plugin-dir` directories (absolute) whose hooks every session loads (claude profile). */
  readonly pluginDirs?: readonly string[];
  /** `--[no-]stop-hooks-continue`; unset, each session decides by its profile. */
  readonly stopHooksContinue?: boolean;
  readonly clientCapabilities?: ClientCapabilities;
  readonly onPermission?: (
    request: RequestPermissionRequest,
  ) => Promise<RequestPermissionResponse> | RequestPermissionResponse;
  readonly clientHandlers?: (client: acp.ClientApp) => void;
  /** The MCP servers `newSession` passes. */
  readonly mcpServers?: readonly McpServer[];
  readonly mcpLimits?: AgentConfig["mcp"];
  /** Ids of new sessions (random by default): a test can prepare a session's directory. */
  readonly newSessionId?: () => string;
  /** Shorter waits before Notification's idle_prompt and permission_prompt (the profile's). */
  readonly notificationDelays?: AgentConfig["notificationDelays"];
}

export interface InMemoryAgent {
  readonly agent: acp.ClientContext;
  /** The project directory (also the launch directory), real path. */
  readonly cwd: string;
  readonly home: string;
  readonly env: (name: string) => string | undefined;
  readonly updates: SessionNotification[];
  readonly permissionRequests: RequestPermissionRequest[];
  readonly logs: string[];
  /** initialize + session/new in `cwd`; returns the session id. */
  newSession(): Promise<string>;
  /** Updates of one session, as their `sessionUpdate` kinds. */
  kinds(sessionId: string): string[];
  text(sessionId: string): string;
}

export async function withInMemoryAgent(
  options: InMemoryOptions,
  fn: (agent: InMemoryAgent) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "acp_mem_" }));
  const cwd = `${root}/project`;
  const home = `${root}/home`;
  await Deno.mkdir(cwd);
  await Deno.mkdir(home);
  const write = async (base: string, files: Readonly<Record<string, string>>) => {
    for (const [path, content] of Object.entries(files)) {
      const full = `${base}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, content);
      if (path.endsWith(".sh")) await Deno.chmod(full, 0o755);
    }
  };
  await write(cwd, options.files ?? {});
  await write(home, options.homeFiles ?? {});
  const envTable: Record<string, string> = { HOME: home };
  const env = (name: string) => envTable[name];
  const logs: string[] = [];
  const models = createModelProvider(
    options.model ?? (() => Promise.resolve(scriptedModel(options.script ?? { turns: [] }))),
  );
  const config: AgentConfig = {
    models,
    launchCwd: cwd,
    home,
    env,
    defaultMode: options.mode ?? "auto-approve-reads",
    rules: options.rules ?? [],
    maxToolRounds: options.maxToolRounds ?? 32,
    contextBudget: options.contextBudget,
    profile: compatProfile(options.profile),
    pluginDirs: options.pluginDirs,
    stopHooksContinue: options.stopHooksContinue,
    hookRunner: options.hookRunner ??
      ((roots) =>
        createHandlerRunner({
          killGraceMs: 200,
          evaluator: createModelEvaluator({
            // Prompt hooks read their own script: a scripted session always starts at turn 1.
            models: options.evaluatorScript
              ? createModelProvider(() => Promise.resolve(scriptedModel(options.evaluatorScript!)))
              : models,
            roots,
            log: (line) => logs.push(line),
          }),
        })),
    observeFiring: options.observeFiring,
    version: "0.0.0-test",
    mcp: options.mcpLimits,
    newSessionId: options.newSessionId,
    notificationDelays: options.notificationDelays,
    log: (line) => logs.push(line),
  };
  const handle = createAgentApp(config);
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const clientApp = acp.client({ name: "test-client" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissionRequests.push(params);
      if (options.onPermission) return await options.onPermission(params);
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
  options.clientHandlers?.(clientApp);
  const connection = clientApp.connect(handle.app);
  const agent = connection.agent;
  try {
    await fn({
      agent,
      cwd,
      home,
      env,
      updates,
      permissionRequests,
      logs,
      async newSession() {
        await agent.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: options.clientCapabilities ?? {},
        });
        const created = await agent.request("session/new", {
          cwd,
          mcpServers: [...(options.mcpServers ?? [])],
        });
        return created.sessionId;
      },
      kinds: (id) => updates.filter((u) => u.sessionId === id).map((u) => u.update.sessionUpdate),
      text: (id) =>
        withoutParagraphBreaks(updates.filter((u) => u.sessionId === id)).map((u) =>
          u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text"
            ? u.update.content.text
            : ""
        ).join(""),
    });
  } finally {
    await handle.shutdown();
    connection.close();
    await connection.closed.catch(() => {});
    await models.dispose();
    await Deno.remove(root, { recursive: true });
  }
}
