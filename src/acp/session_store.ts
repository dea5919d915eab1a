/**
 * The live sessions of one connection, and the steps that create them: a new session (validated
 * cwd, fresh transcript) or a persisted one brought back from its transcript (load and resume).
 */
import { createToolKit } from "../agent/tool_kits.ts";
import type { AgentContext, McpServer, SessionUpdate } from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { allowedRoots, confinePath } from "../agent/allowed_roots.ts";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_KILL_GRACE_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  McpServers,
} from "../agent/mcp/mcp_servers.ts";
import { closeInterruptedToolCalls } from "../agent/interrupted_tool_calls.ts";
import {
  conversationFromTranscript,
  readTranscript,
  replayUpdates,
  type SkippedLine,
} from "../agent/transcript_reader.ts";
import { transcriptPathFor } from "../agent/transcript_path.ts";
import { ClaudeTranscript } from "../agent/claude_transcript.ts";
import { claudeTranscriptPathFor } from "../agent/claude_transcript_path.ts";
import {
  type RestoredSettings,
  type SessionSettings,
  settingsFromTranscript,
} from "../agent/transcript_settings.ts";
import { TranscriptBusy, TranscriptWriter } from "../agent/transcript_writer.ts";
import type { TranscriptRecord } from "../agent/transcript_record.ts";
import type { AgentConfig } from "./agent_config.ts";
import {
  hookPermissionMode,
  isPermissionModeId,
  type PermissionModeId,
} from "../agent/permission_policy.ts";
import { createSessionHookFirer, type SessionHookFirer } from "./session_hook_firer.ts";
import { AgentSession } from "./agent_session.ts";
import { endSession } from "./session_end_hooks.ts";
import { invalidParams, sessionNotFound } from "./rpc_error.ts";

export interface SessionPlace {
  readonly cwd: string;
  readonly additionalDirectories?: readonly string[] | null;
  /** Connected when the session is created or brought back (not when it is live already). */
  readonly mcpServers?: readonly McpServer[] | null;
}

/** A persisted session brought back: what a load replays, and what the user must be told. */
export interface RestoredSession {
  readonly session: AgentSession;
  readonly replay: readonly SessionUpdate[];
  /**
   * About the restore itself (lines skipped, a mode not restored as recorded): not part of the
   * session's history.
   */
  readonly transcriptNotices: readonly string[];
}

export class SessionStore {
  readonly #sessions = new Map<string, AgentSession>();
  /**
   * Sessions whose SessionStart has fired in this process, closed ones included, with what it
   * gave the model: a session closed and loaded again keeps its starting context.
   */
  readonly #started = new Map<string, readonly string[]>();
  /** Restores in flight, per id: a second load of the same session waits for the first. */
  readonly #restoring = new Map<string, Promise<unknown>>();
  #shuttingDown = false;

  constructor(private readonly config: AgentConfig) {}

  create(place: SessionPlace, client: AgentContext): Promise<AgentSession> {
    return this.#track(this.#create(place, client));
  }

  async #create(place: SessionPlace, client: AgentContext): Promise<AgentSession> {
    const { cwd, additionalDirectories, roots } = await this.#checkPlace(place);
    const id = this.config.newSessionId?.() ?? crypto.randomUUID();
    // Hooks first: nothing below can fail and leave the open transcript behind.
    const claudeTranscript = this.#claudeTranscript(id, cwd);
    const hooks = await this.#openHooks(id, cwd, roots, () => session.mode, claudeTranscript);
    const transcript = await TranscriptWriter.open(this.#transcriptPath(id), this.config.log);
    await claudeTranscript?.open();
    transcript.append({
      type: "session",
      sessionId: id,
      cwd,
      additionalDirectories,
      createdAt: new Date().toISOString(),
    });
    const session: AgentSession = new AgentSession({
      id,
      cwd,
      additionalDirectories,
      settings: this.#defaultSettings(),
      settingsRecorded: false,
      conversation: [],
      transcript,
      claudeTranscript,
      roots,
      hooks,
      mcp: this.#startMcpServers(place, cwd),
      toolKit: createToolKit(this.config.profile),
      client,
      log: this.config.log,
    });
    session.recordSettings();
    await this.#keep(session);
    return session;
  }

  #defaultSettings(): SessionSettings {
    return { mode: this.config.defaultMode, stopHooksContinue: false, alwaysRejected: [] };
  }

  /** The session's hooks: one settings-chain read, for the session's whole life. */
  async #openHooks(
    id: string,
    cwd: string,
    roots: readonly string[],
    mode: () => PermissionModeId,
    claudeTranscript: ClaudeTranscript | undefined,
  ): Promise<SessionHookFirer> {
    return await createSessionHookFirer({
      session: {
        id,
        cwd,
        transcriptPath: claudeTranscript?.path ?? this.#transcriptPath(id),
        permissionMode: () => hookPermissionMode(mode()),
      },
      home: this.config.home,
      runHandler: this.config.hookRunner(roots),
      profile: this.config.profile,
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
  #claudeTranscript(id: string, cwd: string): ClaudeTranscript | undefined {
    if (this.config.profile.transcript !== "claude") return undefined;
    return new ClaudeTranscript({
      path: claudeTranscriptPathFor(this.config.home, cwd, id),
      cwd,
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
    const transcriptNotices = this.#reportSkipped(path, read.transcript.skipped);
    if (live?.turnRunning) {
      throw invalidParams(
        `session "${sessionId}" is running a prompt: cancel it before loading it again`,
      );
    }
    if (live) return { session: live, replay, transcriptNotices };
    const { cwd, additionalDirectories, roots } = await this.#checkPlace(place);
    const restored = settingsFromTranscript(records, this.#defaultSettings());
    const modeNotices = this.#reportModeNotRestored(sessionId, restored);
    const claudeTranscript = this.#claudeTranscript(sessionId, cwd);
    const hooks = await this.#openHooks(
      sessionId,
      cwd,
      roots,
      () => session.mode,
      claudeTranscript,
    );
    const transcript = await this.#reopenTranscript(sessionId, path);
    await claudeTranscript?.open();
    const session: AgentSession = new AgentSession({
      id: sessionId,
      cwd,
      additionalDirectories,
      settings: restored.settings,
      // A mode that was not restored as recorded is recorded as it now is.
      settingsRecorded: restored.recorded && restored.recordedMode === restored.settings.mode,
      conversation: conversationFromTranscript(records),
      transcript,
      claudeTranscript,
      roots,
      hooks,
      mcp: this.#startMcpServers(place, cwd),
      toolKit: createToolKit(this.config.profile),
      client,
      log: this.config.log,
      toolCallsSoFar: highestToolCallNumber(records),
    });
    session.recordSettings();
    await this.#keep(session);
    return { session, replay, transcriptNotices: [...transcriptNotices, ...modeNotices] };
  }

  /**
   * Logs a recorded mode that was not restored, and returns what the user is told: a mode this
   * version does not know, or one looser than this process's own.
   */
  #reportModeNotRestored(sessionId: string, restored: RestoredSettings): string[] {
    if (!restored.recorded || restored.recordedMode === restored.settings.mode) return [];
    const { recordedMode, settings: { mode } } = restored;
    if (!isPermissionModeId(recordedMode)) {
      this.config.log(
        `Session "${sessionId}" was in mode "${recordedMode}", which this version does not know: ` +
          `it is restored in "${mode}"`,
      );
      return [];
    }
    const message = `This session was saved in mode "${recordedMode}", but this agent was ` +
      `started in the stricter "${mode}" (--permission-policy): the session goes on in ` +
      `"${mode}"; change the mode in your client to choose another`;
    this.config.log(`Session "${sessionId}": ${message}`);
    return [message];
  }

  /** The transcript of a session brought back, unless another agent process is writing it. */
  async #reopenTranscript(sessionId: string, path: string): Promise<TranscriptWriter> {
    try {
      return await TranscriptWriter.open(path, this.config.log);
    } catch (error) {
      if (!(error instanceof TranscriptBusy)) throw error;
      throw invalidParams(
        `session "${sessionId}" is open in another agent process (its transcript "${path}" is ` +
          "being written): close it there, or end that agent, before loading it here",
      );
    }
  }

  /** Logs each line a transcript read skipped; the user gets one notice for them all. */
  #reportSkipped(path: string, skipped: readonly SkippedLine[]): string[] {
    if (skipped.length === 0) return [];
    for (const { line, reason } of skipped) {
      this.config.log(`Skipped line ${line} of the transcript "${path}": ${reason}`);
    }
    const lines = skipped.length === 1 ? "1 line" : `${skipped.length} lines`;
    return [
      `The transcript "${path}" has ${lines} that hold no readable record: skipped, and the ` +
      "rest of the session loaded without them. The agent's log (stderr) names them",
    ];
  }

  /** True the first time for an id: SessionStart fires once per session id per process. */
  markStarted(session: AgentSession): boolean {
    const context = this.#started.get(session.id);
    if (context !== undefined) {
      session.startContext = context;
      return false;
    }
    this.#started.set(session.id, []);
    return true;
  }

  /** Keeps what SessionStart gave the model, for a later load of the same session. */
  rememberStartContext(session: AgentSession): void {
    this.#started.set(session.id, session.startContext);
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
    await this.#track(endSession(session, this.config.env));
  }

  /**
   * Sessions being made (they close themselves) or being closed: closing everything waits for
   * them.
   */
  readonly #making = new Set<Promise<unknown>>();

  #track<T>(making: Promise<T>): Promise<T> {
    const settled = making.catch(() => {}).finally(() => this.#making.delete(settled));
    this.#making.add(settled);
    return making;
  }

  /** Registers a new session, unless the agent began shutting down while it was being made. */
  async #keep(session: AgentSession): Promise<void> {
    if (this.#shuttingDown) {
      await session.close();
      throw new Error("The agent is shutting down");
    }
    this.#sessions.set(session.id, session);
  }

  async closeAll(): Promise<void> {
    this.#shuttingDown = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all([
      ...sessions.map((s) => endSession(s, this.config.env)),
      ...this.#making,
    ]);
  }

  #transcriptPath(sessionId: string): string {
    // Ids come from the client on load: anything that could leave the sessions directory is no id of ours.
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) throw sessionNotFound(sessionId);
    return transcriptPathFor(sessionId, this.config.env);
  }

  /** The cwd must be absolute, exist, and lie inside the allowed roots (acp.md `session/new`). */
  async #checkPlace(
    place: SessionPlace,
  ): Promise<{ cwd: string; additionalDirectories: string[]; roots: readonly string[] }> {
    if (!isAbsolute(place.cwd)) {
      throw invalidParams(`"cwd" must be an absolute path, got "${place.cwd}"`);
    }
    const additionalDirectories = [...(place.additionalDirectories ?? [])];
    for (const dir of additionalDirectories) {
      if (!isAbsolute(dir)) {
        throw invalidParams(`"additionalDirectories" must hold absolute paths, got "${dir}"`);
      }
    }
    const roots = await allowedRoots({ launchCwd: this.config.launchCwd, home: this.config.home });
    for (const dir of [place.cwd, ...additionalDirectories]) {
      const confined = await confinePath(dir, { cwd: this.config.launchCwd, roots });
      if (!confined.ok) {
        throw invalidParams(`Cannot use "${dir}" as a session directory: ${confined.reason}`);
      }
      const info = await Deno.stat(confined.path).catch(() => undefined);
      if (!info?.isDirectory) {
        throw invalidParams(`Cannot use "${dir}" as a session directory: it is not a directory`);
      }
    }
    // Where the session's tools and agent hooks may touch files, for its whole life.
    const sessionRoots = additionalDirectories.length === 0 ? roots : await allowedRoots({
      launchCwd: this.config.launchCwd,
      home: this.config.home,
      additionalDirectories,
    });
    return { cwd: place.cwd, additionalDirectories, roots: sessionRoots };
  }
}

/**
 * The highest `call_N` the client has seen announced, so new ids never repeat one: a call that
 * was announced but never finished (the agent was killed mid-tool) counts too.
 */
function highestToolCallNumber(records: readonly TranscriptRecord[]): number {
  let highest = 0;
  for (const record of records) {
    if (record.type !== "update" || record.update.sessionUpdate !== "tool_call") continue;
    const number = Number(/^call_(\d+)$/.exec(record.update.toolCallId)?.[1] ?? 0);
    highest = Math.max(highest, number);
  }
  return highest;
}
