/**
 * What a session is opened with, new or brought back (session_store.ts): its profile as its
 * hooks decide, its hooks, its settings, its Claude-format transcript, its MCP servers, and where
 * its own transcript lives.
 */
import type { AgentConfig } from "../agent_config.ts";
import { ClaudeTranscript } from "../../agent/transcript/claude_transcript.ts";
import {
  claudeTranscriptHome,
  claudeTranscriptPathFor,
} from "../../agent/transcript/claude_transcript_path.ts";
import { transcriptPathFor } from "../../agent/transcript/transcript_path.ts";
import type { SessionSettings } from "../../agent/transcript/transcript_settings.ts";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_KILL_GRACE_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  McpServers,
} from "../../agent/mcp/mcp_servers.ts";
import {
  hookPermissionMode,
  type PermissionModeId,
} from "../../agent/permissions/permission_policy.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { loadProfileChoice, type ProfileChoice } from "../../hooks/profile_choice.ts";
import { describeDecision } from "../../hooks/profile_decision.ts";
import { sessionNotFound } from "../rpc_error.ts";
import { stopHooksContinueFor } from "../turn/stop_continuation.ts";
import { createSessionHookFirer, type SessionHookFirer } from "./session_hook_firer.ts";
import type { SessionPlace } from "./session_place.ts";

/**
 * The "model" option's listing, fresh for the response (a directory scan, an endpoint's list):
 * it never fails, a lister that does is left out.
 */
export async function listSessionModels(
  config: AgentConfig,
): Promise<void> {
  await config.modelCatalog?.refresh();
}

/** A new session's settings, or a transcript's that recorded none; `profile` is the session's. */
export function defaultSettings(
  config: AgentConfig,
  profile: CompatProfile,
): SessionSettings {
  return {
    mode: config.defaultMode,
    stopHooksContinue: stopHooksContinueFor(config.stopHooksContinue, profile),
    alwaysRejected: [],
  };
}

/**
 * The hooks of a session in `cwd`, under the profile `--compat` forces or its hooks decide
 * (a session brought back decides again: its settings may have changed since).
 */
export async function chooseProfile(
  config: AgentConfig,
  cwd: string,
): Promise<ProfileChoice> {
  const choice = await loadProfileChoice(config.profile, cwd, config.home, {
    pluginDirs: config.pluginDirs,
    ...(config.profileOrigin === undefined ? {} : { origin: config.profileOrigin }),
  });
  config.log(`Session in "${cwd}": profile ${describeDecision(choice.decision)}`);
  return choice;
}

/** The session's hooks: one settings-chain read, for the session's whole life. */
export async function openSessionHooks(
  config: AgentConfig,
  id: string,
  cwd: string,
  roots: readonly string[],
  mode: () => PermissionModeId,
  currentDir: () => string,
  claudeTranscript: ClaudeTranscript | undefined,
  choice: ProfileChoice,
): Promise<SessionHookFirer> {
  return await createSessionHookFirer({
    session: {
      id,
      cwd,
      currentDir,
      transcriptPath: claudeTranscript?.path ?? transcriptPathOf(config, id),
      permissionMode: () => hookPermissionMode(mode()),
    },
    home: config.home,
    runHandler: config.hookRunner(roots),
    profile: choice.decision.profile,
    hooks: choice.hooks,
    decision: choice.decision,
    pluginDirs: config.pluginDirs,
    log: config.log,
    observe: config.observeFiring,
    transcript: claudeTranscript,
  });
}

/**
 * The `claude` profile's transcript for hooks, at Claude Code's path for this cwd; not opened
 * yet. A session brought back appends to the same file, its chain going on.
 */
export function claudeTranscriptFor(
  config: AgentConfig,
  id: string,
  cwd: string,
  profile: CompatProfile,
  currentCwd: () => string,
): ClaudeTranscript | undefined {
  if (profile.transcript !== "claude") return undefined;
  const home = claudeTranscriptHome(config.home);
  if (home === undefined) {
    config.log(
      `No Claude-format transcript for session ${id}: HOME is unset or not an absolute path, ` +
        "so hooks get raw.jsonl as transcript_path; set HOME to have it written where Claude Code writes it",
    );
    return undefined;
  }
  return new ClaudeTranscript({
    path: claudeTranscriptPathFor(home, cwd, id),
    cwd,
    currentCwd,
    sessionId: id,
    version: config.version,
    log: config.log,
  });
}

export function startMcpServers(
  config: AgentConfig,
  place: SessionPlace,
  cwd: string,
): McpServers {
  const mcp = config.mcp ?? {};
  return McpServers.start(place.mcpServers ?? [], {
    cwd,
    env: config.shellEnv ?? Deno.env.toObject(),
    startTimeoutMs: mcp.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS,
    callTimeoutMs: mcp.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
    killGraceMs: mcp.killGraceMs ?? DEFAULT_MCP_KILL_GRACE_MS,
    clientVersion: config.version,
    log: config.log,
  });
}

export function transcriptPathOf(
  config: AgentConfig,
  sessionId: string,
): string {
  // Ids come from the client on load: anything that could leave the sessions directory is no id of ours.
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) throw sessionNotFound(sessionId);
  return transcriptPathFor(sessionId, config.env);
}
