/**
 * The ACP agent: one handler per method, each short — parse, call a named step, map the result.
 * Errors leave through `answering`, so every failure is a JSON-RPC error of the right kind.
 */
import { SESSION_COMMANDS } from "./session/session_commands.ts";
import * as acp from "@agentclientprotocol/sdk";
import type { ClientCapabilities, InitializeResponse } from "@agentclientprotocol/sdk";
import { firedEvents } from "../hooks/event_table.ts";
import { listSessions } from "../agent/transcript/session_catalog.ts";
import type { AgentConfig } from "./agent_config.ts";
import { AfterResponse } from "./after_response.ts";
import type { AgentSession } from "./session/agent_session.ts";
import { foreignToolNotice } from "./session/foreign_tool_notice.ts";
import { profileNotice } from "./session/profile_notice.ts";
import { armIdleNotification } from "./session/notification_hooks.ts";
import { compatProfile } from "../profile/compat_profile.ts";
import { runPromptTurn } from "./turn/prompt_turn.ts";
import { answering } from "./rpc_error.ts";
import {
  applyConfigOption,
  applyMode,
  sessionConfigOptions,
  sessionModes,
} from "./session/session_config.ts";
import { SessionStore } from "./session/session_store.ts";
import { runSessionStartHooks } from "./session/session_start_hooks.ts";
import { readSessionInstructions } from "./session/project_instructions.ts";
import { runToolCall } from "./turn/tool_call_step.ts";
import { toolSetFor } from "./turn/tool_set.ts";
import type { ModelSession } from "../model/model.ts";
import { type ClientFeatures, clientFeatures, NO_CLIENT_FEATURES } from "./client_features.ts";

export const PROTOCOL_VERSION = 1;

export interface AgentHandle {
  readonly app: acp.AgentApp;
  /** Cancels every turn and frees every session (the connection is closing). */
  shutdown(): Promise<void>;
}

export function createAgentApp(config: AgentConfig): AgentHandle {
  const store = new SessionStore(config);
  const afterResponse = new AfterResponse();
  let clientCapabilities: ClientCapabilities = {};
  let features: ClientFeatures = NO_CLIENT_FEATURES;
  /**
   * Whether the client knows config options, so `config_option_update` is news it can take: it
   * advertised config option capabilities, or set one. Both speak protocol version 1, but an
   * older client (Zed's SDK 0.4.5) rejects the update as "Invalid params"; and a client that
   * knows them uses them, not `session/set_mode` (ACP: clients SHOULD use configOptions).
   */
  let knowsConfigOptions = false;

  const app = acp.agent({ name: "llama-agent" })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      features = clientFeatures(clientCapabilities);
      knowsConfigOptions = clientCapabilities.session?.configOptions != null;
      config.models.warmUp();
      return initializeResponse(config);
    })
    .onRequest("session/new", ({ params, client }) =>
      answering(async () => {
        const session = await store.create(params, client);
        session.clientFeatures = features;
        // The transcript holds the session record before the first hook reads transcript_path.
        await session.transcript.flush();
        const notices = await startSession(store, session, "startup");
        // Once, at startup: the profile decided from the hooks, and hooks that can never fire
        // under it, are said, not hidden.
        const chosen = profileNotice(session.hooks);
        if (chosen !== undefined) notices.unshift(chosen);
        const foreign = foreignToolNotice(
          session.hooks.hooks,
          session.toolKit.profile,
          session.cwd,
        );
        if (foreign !== undefined) notices.push(foreign);
        // After the response: a client must know the session id before updates name it.
        afterResponse.run(() => {
          sendCommands(session);
          for (const notice of notices) session.notice(notice);
          session.reportProblems();
        });
        return {
          sessionId: session.id,
          modes: sessionModes(session),
          configOptions: sessionConfigOptions(session),
        };
      }))
    .onRequest("session/load", ({ params, client }) =>
      answering(async () => {
        const { session, replay, transcriptNotices } = await store.restore(
          params.sessionId,
          params,
          client,
        );
        session.clientFeatures = features;
        const notices = await startSession(store, session, "resume");
        session.replay(replay);
        session.announceTitle();
        for (const notice of notices) session.notice(notice);
        for (const notice of transcriptNotices) session.transcriptNotice(notice);
        session.reportProblems();
        afterResponse.run(() => sendCommands(session));
        return { modes: sessionModes(session), configOptions: sessionConfigOptions(session) };
      }))
    .onRequest("session/resume", ({ params, client }) =>
      answering(async () => {
        const { session, transcriptNotices } = await store.restore(
          params.sessionId,
          params,
          client,
        );
        session.clientFeatures = features;
        for (const notice of await startSession(store, session, "resume")) session.notice(notice);
        afterResponse.run(() => {
          sendCommands(session);
          session.announceTitle();
          for (const notice of transcriptNotices) session.transcriptNotice(notice);
          session.reportProblems();
        });
        return { modes: sessionModes(session), configOptions: sessionConfigOptions(session) };
      }))
    .onRequest(
      "session/list",
      ({ params }) =>
        answering(async () => ({
          sessions: await listSessions(config.env, { cwd: params.cwd }, config.log),
        })),
    )
    .onRequest("session/close", ({ params }) =>
      answering(async () => {
        await store.close(params.sessionId);
        return {};
      }))
    .onRequest("session/set_mode", ({ params }) =>
      answering(() => {
        const session = store.get(params.sessionId);
        if (applyMode(session, params.modeId)) announceModeChange(session, knowsConfigOptions);
        return Promise.resolve({});
      }))
    .onRequest("session/set_config_option", ({ params }) =>
      answering(() => {
        knowsConfigOptions = true;
        const session = store.get(params.sessionId);
        if (applyConfigOption(session, params)) {
          session.sendState({ sessionUpdate: "current_mode_update", currentModeId: session.mode });
        }
        return Promise.resolve({ configOptions: sessionConfigOptions(session) });
      }))
    .onRequest("session/prompt", ({ params, client }) =>
      answering(async () => {
        const session = store.get(params.sessionId);
        // Begun before the first await, so a cancel that follows the prompt at once is not lost.
        const signal = session.beginTurn();
        const promptId = config.newPromptId?.() ?? crypto.randomUUID();
        try {
          const tools = toolSetFor(session, config, clientCapabilities, client);
          // The turn's model context, once open: its size picks the built-in tools' form, the
          // same for every request of the turn (the tools are read only after it opens).
          let model: ModelSession | undefined;
          return await runPromptTurn(session, params.prompt, signal, {
            promptId,
            // The MCP servers finish starting while the model loads: their tools are on offer
            // from the first generation.
            openModel: async () => {
              [model] = await Promise.all([session.modelSession(), session.mcp.ready()]);
              return model;
            },
            tools: () => [...tools.definitions(model?.contextSize), ...session.mcp.definitions()],
            maxToolRounds: config.maxToolRounds,
            stopHookBlockCap: config.stopHookBlockCap,
            contextBudget: config.contextBudget,
            compactionUpdates: clientCapabilities.session?.compaction != null,
            runToolCall: (call, turn) =>
              runToolCall(session, call, turn, {
                ...tools,
                mcp: session.mcp,
                rules: config.rules,
              }),
          });
        } finally {
          session.endTurn();
          armIdleNotification(session, promptId);
          // When the client has the answer, the transcripts hold the whole turn.
          await session.transcript.flush();
          await session.claudeTranscript?.flush();
        }
      }))
    .onNotification("session/cancel", ({ params }) => {
      store.find(params.sessionId)?.cancel();
    });

  return {
    app,
    shutdown: () => {
      afterResponse.cancel();
      return store.closeAll();
    },
  };
}

/** SessionStart, once per session id in this process: a load after a load fires nothing. */
async function startSession(
  store: SessionStore,
  session: AgentSession,
  source: "startup" | "resume",
): Promise<string[]> {
  const instructionNotices = await readSessionInstructions(session);
  if (!store.markStarted(session)) return instructionNotices;
  const notices = await runSessionStartHooks(session, source);
  store.rememberStartContext(session);
  return [...instructionNotices, ...notices];
}

function initializeResponse(config: AgentConfig): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
      // Under `auto`, the events a session may fire: the claude profile's, the most there are.
      _meta: {
        "llama-agent/hooks": {
          events: [
            ...firedEvents(config.profile === "auto" ? compatProfile("claude") : config.profile),
          ],
        },
      },
    },
    agentInfo: { name: "llama-agent", title: "llama-agent", version: config.version },
    authMethods: [],
  };
}

/** The session's slash commands (session_commands.ts), once the client knows the session. */
function sendCommands(session: AgentSession): void {
  session.sendState({
    sessionUpdate: "available_commands_update",
    availableCommands: [...SESSION_COMMANDS],
  });
}

function announceModeChange(session: AgentSession, withConfigOptions: boolean): void {
  session.sendState({ sessionUpdate: "current_mode_update", currentModeId: session.mode });
  if (!withConfigOptions) return;
  session.sendState({
    sessionUpdate: "config_option_update",
    configOptions: sessionConfigOptions(session),
  });
}
