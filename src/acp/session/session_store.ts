/**
 * The live sessions of one connection, and the steps that create them: a new session (validated
 * cwd, fresh transcript) or a persisted one brought back from its transcript (load and resume).
 */
import type { EnvAssignment } from "../../agent/shell/session_env_file.ts";
import { createToolKit } from "../../agent/tools/tool_kits.ts";
import type { AgentContext } from "@agentclientprotocol/sdk";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_KILL_GRACE_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  McpServers,
} from "../../agent/mcp/mcp_servers.ts";
import { closeInterruptedToolCalls } from "../../agent/transcript/interrupted_tool_calls.ts";
import {
  conversationFromTranscript,
  readTranscript,
  replayUpdates,
  summaryFromTranscript,
} from "../../agent/transcript/transcript_reader.ts";
import { transcriptPathFor } from "../../agent/transcript/transcript_path.ts";
import { ClaudeTranscript } from "../../agent/transcript/claude_transcript.ts";
import {
  claudeTranscriptHome,
  claudeTranscriptPathFor,
} from "../../agent/transcript/claude_transcript_path.ts";
import {
  type SessionSettings,
  settingsFromTranscript,
} from "../../agent/transcript/transcript_settings.ts";
import { TranscriptWriter } from "../../agent/transcript/transcript_writer.ts";
import type { AgentConfig } from "../agent_config.ts";
import {
  hookPermissionMode,
  type PermissionModeId,
} from "../../agent/permissions/permission_policy.ts";
import { createSessionHookFirer, type SessionHookFirer } from "./session_hook_firer.ts";
import { AgentSession } from "./agent_session.ts";
import { endSession } from "./session_end_hooks.ts";
import {
  highestToolCallNumber,
  reopenTranscript,
  reportModeNotRestored,
  reportSkipped,
  type RestoredSession,
} from "./restored_session.ts";
import { invalidParams, sessionNotFound } from "../rpc_error.ts";
import { checkSessionPlace, type SessionPlace } from "./session_place.ts";
import { restoredModelChoice } from "./session_config.ts";
import { stopHooksContinueFor } from "../turn/stop_continuation.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { loadProfileChoice, type ProfileChoice } from "../../hooks/profile_choice.ts";
import { describeDecision } from "../../hooks/profile_decision.ts";

export type { RestoredSession } from "./restored_session.ts";

/**
 * How long a shutdown waits for sessions still being opened: the requests that open them have
 * already had the stdio stream's own wait (stdio_stream.ts) to be answered.
 */
const DEFAULT_SHUTDOWN_WAIT_MS = 2_000;
export type { SessionPlace } from "./session_place.ts";

interface StartedSession {
  readonly context: readonly string[];
  readonly env: readonly EnvAssignment[];
}

export class SessionStore {
  readonly #sessions = new Map<string, AgentSession>();
  /**
   * Sessions whose SessionStart has fired in this process, closed ones included, with what it
   * gave the model and the variables its hooks exported (`CLAUDE_ENV_FILE`): a session closed
   * and loaded again keeps both.
   */
  readonly #started = new Map<string, StartedSession>();
  /** Restores in flight, per id: a second load of the same session waits for the first. */
  readonly #restoring = new Map<string, Promise<unknown>>();
  #shuttingDown = false;

  constructor(private readonly config: AgentConfig) {}

  create(place: SessionPlace, client: AgentContext): Promise<AgentSession> {
    return this.#track(this.#create(place, client));
  }

  async #create(place: SessionPlace, client: AgentContext): Promise<AgentSession> {
    const { cwd, additionalDirectories, roots } = await checkSessionPlace(place, this.config);
    const listing = this.#listModels();
    const id = this.config.newSessionId?.() ?? crypto.randomUUID();
    // Hooks first: nothing below can fail and leave the open transcript behind. They decide the
    // session's profile (`--compat auto`), which decides everything else it presents.
    const choice = await this.#chooseProfile(cwd);
    const { profile } = choice.decision;
    const claudeTranscript = this.#claudeTranscript(
      id,
      cwd,
      profile,
      () => session.workingDirectory.current,
    );
    const hooks = await this.#openHooks(
      id,
      cwd,
      roots,
      () => session.mode,
      () => session.workingDirectory.current,
      claudeTranscript,
      choice,
    );
    const transcript = await TranscriptWriter.open(this.#transcriptPath(id), this.config.log);
    await claudeTranscript?.open();
    transcript.append({
      type: "session",
      sessionId: id,
      cwd,
      additionalDirectories,
      createdAt: new Date().toISOString(),
    });
    await listing;
    const session: AgentSession = new AgentSession({
      id,
      cwd,
      additionalDirectories,
      settings: this.#defaultSettings(profile),
      settingsRecorded: false,
      conversation: [],
      transcript,
      claudeTranscript,
      roots,
      hooks,
      mcp: this.#startMcpServers(place, cwd),
      toolKit: createToolKit(profile),
      client,
      models: this.config.models,
      modelCatalog: this.config.modelCatalog,
      log: this.config.log,
      notificationDelays: this.config.notificationDelays,
    });
    session.recordSettings();
    await this.#keep(session);
    return session;
  }

  /**
   * The "model" option's listing, fresh for the response (a directory scan, an endpoint's list):
   * it never fails, a lister that does is left out.
   */
  async #listModels(): Promise<void> {
    await this.config.modelCatalog?.refresh();
  }

  /** A new session's settings, or a transcript's that recorded none; `profile` is the session's. */
  #defaultSettings(profile: CompatProfile): SessionSettings {
    return {
      mode: this.config.defaultMode,
      stopHooksContinue: stopHooksContinueFor(this.config.stopHooksContinue, profile),
      alwaysRejected: [],
    };
  }

  /**
   * The hooks of a session in `cwd`, under the profile `--compat` forces or its hooks decide
   * (a session brought back decides again: its settings may have changed since).
   */
  async #chooseProfile(cwd: string): Promise<ProfileChoice> {
    const choice = await loadProfileChoice(this.config.profile, cwd, this.config.home, {
      pluginDirs: this.config.pluginDirs,
      ...(this.config.profileOrigin === undefined ? {} : { origin: this.config.profileOrigin }),
    });
    this.config.log(`Session in "${cwd}": profile ${describeDecision(choice.decision)}`);
    return choice;
  }

  /** The session's hooks: one settings-chain read, for the session's whole life. */
  async #openHooks(
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
        transcriptPath: claudeTranscript?.path ?? this.#transcriptPath(id),
        permissionMode: () => hookPermissionMode(mode()),
      },
      home: this.config.home,
      runHandler: this.config.hookRunner(roots),
      profile: choice.decision.profile,
      hooks: choice.hooks,
      decision: choice.decision,
      pluginDirs: this.config.pluginDirs,
      log: this.config.log,
      observe: this.config.observeFiring,
      transcript: claudeTranscript,
    });
  }

  /**
   * The `claude` profile's transcript for hooks, at Claude Code's path for this cwd; not opened
   * yet. A session brought back appends to the same file, its chain going on.
   */
  #claudeTranscript(
    id: string,
    cwd: string,
    profile: CompatProfile,
    currentCwd: () => string,
  ): ClaudeTranscript | undefined {
    if (profile.transcript !== "claude") return undefined;
    const home = claudeTranscriptHome(this.config.home);
    if (home === undefined) {
      this.config.log(
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
      version: this.config.version,
      log: this.config.log,
    });
  }

  #startMcpServers(place: SessionPlace, cwd: string): McpServers {
    const mcp = this.config.mcp ?? {};
    return McpServers.start(place.mcpServers ?? [], {
      cwd,
      env: this.config.shellEnv ?? Deno.env.toObject(),
      startTimeoutMs: mcp.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS,
      callTimeoutMs: mcp.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
      killGraceMs: mcp.killGraceMs ?? DEFAULT_MCP_KILL_GRACE_MS,
      clientVersion: this.config.version,
      log: this.config.log,
    });
  }

  /**
   * Brings a persisted session back (or takes the live one) and returns the updates a load
   * replays. The transcript is the truth: what it does not hold did not happen.
   */
  async restore(
    sessionId: string,
    place: SessionPlace,
    client: AgentContext,
  ): Promise<RestoredSession> {
    // Two loads of one session at once would both build it (and start its MCP servers twice):
    // the second waits, and then finds the first's session live.
    const before = this.#restoring.get(sessionId);
    const restoring = this.#track((async () => {
      await before?.catch(() => {});
      return await this.#restore(sessionId, place, client);
    })());
    this.#restoring.set(sessionId, restoring);
    try {
      return await restoring;
    } finally {
      if (this.#restoring.get(sessionId) === restoring) this.#restoring.delete(sessionId);
    }
  }

  async #restore(
    sessionId: string,
    place: SessionPlace,
    client: AgentContext,
  ): Promise<RestoredSession> {
    const path = this.#transcriptPath(sessionId);
    const live = this.#sessions.get(sessionId);
    if (live) await live.transcript.flush();
    const read = await readTranscript(path);
    if (!read.ok) {
      if (read.reason === "missing") throw sessionNotFound(sessionId);
      throw invalidParams(read.message);
    }
    // A call the agent never finished (it was killed mid-call) ends as failed, for both.
    const records = closeInterruptedToolCalls(read.transcript.records);
    const replay = replayUpdates(records);
    const transcriptNotices = reportSkipped(path, read.transcript.skipped, this.config.log);
    if (live?.turnRunning) {
      throw invalidParams(
        `session "${sessionId}" is running a prompt: cancel it before loading it again`,
      );
    }
    if (live) {
      await this.#listModels();
      return { session: live, replay, transcriptNotices };
    }
    const { cwd, additionalDirectories, roots } = await checkSessionPlace(place, this.config);
    await this.#listModels();
    const choice = await this.#chooseProfile(cwd);
    const { profile } = choice.decision;
    const restored = settingsFromTranscript(records, this.#defaultSettings(profile));
    const modeNotices = reportModeNotRestored(sessionId, restored, this.config.log);
    const recordedModel = restored.settings.model;
    const model = restoredModelChoice(
      sessionId,
      recordedModel,
      this.config.modelCatalog,
      this.config.log,
    );
    const claudeTranscript = this.#claudeTranscript(
      sessionId,
      cwd,
      profile,
      () => session.workingDirectory.current,
    );
    // Before anything is opened: nothing is left to close when it is refused.
    const unreadable = await claudeTranscript?.unreadable();
    if (unreadable !== undefined) throw invalidParams(unreadable);
    const hooks = await this.#openHooks(
      sessionId,
      cwd,
      roots,
      () => session.mode,
      () => session.workingDirectory.current,
      claudeTranscript,
      choice,
    );
    const transcript = await reopenTranscript(sessionId, path, this.config.log);
    await claudeTranscript?.open();
    const session: AgentSession = new AgentSession({
      id: sessionId,
      cwd,
      additionalDirectories,
      settings: { ...restored.settings, model },
      // A mode or model that was not restored as recorded is recorded as it now is.
      settingsRecorded: restored.recorded && restored.recordedMode === restored.settings.mode &&
        model === recordedModel,
      conversation: conversationFromTranscript(records),
      contextSummary: summaryFromTranscript(records),
      transcript,
      claudeTranscript,
      roots,
      hooks,
      mcp: this.#startMcpServers(place, cwd),
      toolKit: createToolKit(profile),
      client,
      models: this.config.models,
      modelCatalog: this.config.modelCatalog,
      log: this.config.log,
      notificationDelays: this.config.notificationDelays,
      toolCallsSoFar: highestToolCallNumber(records),
      firstPrompt: records.find((record) => record.type === "prompt")?.prompt,
    });
    session.recordSettings();
    await this.#keep(session);
    return { session, replay, transcriptNotices: [...transcriptNotices, ...modeNotices] };
  }

  /** True the first time for an id: SessionStart fires once per session id per process. */
  markStarted(session: AgentSession): boolean {
    const started = this.#started.get(session.id);
    if (started !== undefined) {
      session.startContext = started.context;
      session.sessionEnv = started.env;
      return false;
    }
    this.#started.set(session.id, { context: [], env: [] });
    return true;
  }

  /** Keeps what SessionStart gave the session, for a later load of the same session. */
  rememberStartContext(session: AgentSession): void {
    this.#started.set(session.id, { context: session.startContext, env: session.sessionEnv });
  }

  get(sessionId: string): AgentSession {
    const session = this.#sessions.get(sessionId);
    if (!session) throw sessionNotFound(sessionId);
    return session;
  }

  find(sessionId: string): AgentSession | undefined {
    return this.#sessions.get(sessionId);
  }

  async close(sessionId: string): Promise<void> {
    const session = this.get(sessionId);
    this.#sessions.delete(sessionId);
    // Tracked: an agent shutting down meanwhile waits for this session's SessionEnd hooks.
    await this.#track(endSession(session, this.config.env), this.#closing);
  }

  /** Sessions being made (they close themselves): closing everything waits a while for them. */
  readonly #making = new Set<Promise<unknown>>();
  /** Sessions being closed: closing everything waits for their SessionEnd hooks. */
  readonly #closing = new Set<Promise<unknown>>();

  #track<T>(work: Promise<T>, set: Set<Promise<unknown>> = this.#making): Promise<T> {
    const settled = work.catch(() => {}).finally(() => set.delete(settled));
    set.add(settled);
    return work;
  }

  /** Registers a new session, unless the agent began shutting down while it was being made. */
  async #keep(session: AgentSession): Promise<void> {
    if (this.#shuttingDown) {
      await session.close();
      throw new Error("The agent is shutting down");
    }
    this.#sessions.set(session.id, session);
  }

  /**
   * Ends every session (their SessionEnd hooks within their budget), and waits for those being
   * made or closed, but for those being made only `shutdownWaitMs`: one stuck on something that
   * never answers must not keep the agent running after its client has gone (it closes itself if
   * it ever finishes).
   */
  async closeAll(): Promise<void> {
    this.#shuttingDown = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    const making = [...this.#making];
    const waitMs = this.config.shutdownWaitMs ?? DEFAULT_SHUTDOWN_WAIT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<"late">((resolve) => timer = setTimeout(resolve, waitMs, "late"));
    const [, made] = await Promise.all([
      Promise.all([...sessions.map((s) => endSession(s, this.config.env)), ...this.#closing]),
      Promise.race([Promise.all(making), limit]),
    ]);
    clearTimeout(timer);
    if (made === "late") {
      const left = making.filter((promise) => this.#making.has(promise)).length;
      this.config.log(
        `Stopped waiting for ${left} session(s) still being opened ${waitMs} ms after the ` +
          "agent began shutting down: exiting without them",
      );
    }
  }

  #transcriptPath(sessionId: string): string {
    // Ids come from the client on load: anything that could leave the sessions directory is no id of ours.
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) throw sessionNotFound(sessionId);
    return transcriptPathFor(sessionId, this.config.env);
  }
}
