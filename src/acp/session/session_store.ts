/**
 * The live sessions of one connection, and the steps that create them: a new session (validated
 * cwd, fresh transcript) or a persisted one brought back from its transcript (load and resume).
 */
import type { EnvAssignment } from "../../agent/shell/session_env_file.ts";
import { createToolKit } from "../../agent/tools/tool_kits.ts";
import type { AgentContext } from "@agentclientprotocol/sdk";
import { closeInterruptedToolCalls } from "../../agent/transcript/interrupted_tool_calls.ts";
import {
  conversationFromTranscript,
  readTranscript,
  replayUpdates,
  summaryFromTranscript,
} from "../../agent/transcript/transcript_reader.ts";
import { settingsFromTranscript } from "../../agent/transcript/transcript_settings.ts";
import { TranscriptWriter } from "../../agent/transcript/transcript_writer.ts";
import type { AgentConfig } from "../agent_config.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
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
import {
  chooseProfile,
  claudeTranscriptFor,
  defaultSettings,
  listSessionModels,
  openSessionHooks,
  startMcpServers,
  transcriptPathOf,
} from "./session_parts.ts";

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

  /** What a session, new or brought back, takes from the agent's configuration and its profile. */
  #fromConfig(place: SessionPlace, cwd: string, profile: CompatProfile) {
    return {
      mcp: startMcpServers(this.config, place, cwd),
      toolKit: createToolKit(profile),
      models: this.config.models,
      modelCatalog: this.config.modelCatalog,
      log: this.config.log,
      notificationDelays: this.config.notificationDelays,
    };
  }

  async #create(place: SessionPlace, client: AgentContext): Promise<AgentSession> {
    const { cwd, additionalDirectories, roots } = await checkSessionPlace(place, this.config);
    const listing = listSessionModels(this.config);
    const id = this.config.newSessionId?.() ?? crypto.randomUUID();
    // Hooks first: nothing below can fail and leave the open transcript behind. They decide the
    // session's profile (`--compat auto`), which decides everything else it presents.
    const choice = await chooseProfile(this.config, cwd);
    const { profile } = choice.decision;
    const claudeTranscript = claudeTranscriptFor(
      this.config,
      id,
      cwd,
      profile,
      () => session.workingDirectory.current,
    );
    const hooks = await openSessionHooks(
      this.config,
      id,
      cwd,
      roots,
      () => session.mode,
      () => session.workingDirectory.current,
      claudeTranscript,
      choice,
    );
    const transcript = await TranscriptWriter.open(
      transcriptPathOf(this.config, id),
      this.config.log,
    );
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
      settings: defaultSettings(this.config, profile),
      settingsRecorded: false,
      conversation: [],
      transcript,
      claudeTranscript,
      roots,
      hooks,
      ...this.#fromConfig(place, cwd, profile),
      client,
    });
    session.recordSettings();
    await this.#keep(session);
    return session;
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
    const path = transcriptPathOf(this.config, sessionId);
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
      await listSessionModels(this.config);
      return { session: live, replay, transcriptNotices };
    }
    const { cwd, additionalDirectories, roots } = await checkSessionPlace(place, this.config);
    await listSessionModels(this.config);
    const choice = await chooseProfile(this.config, cwd);
    const { profile } = choice.decision;
    const restored = settingsFromTranscript(records, defaultSettings(this.config, profile));
    const modeNotices = reportModeNotRestored(sessionId, restored, this.config.log);
    const recordedModel = restored.settings.model;
    const model = restoredModelChoice(
      sessionId,
      recordedModel,
      this.config.modelCatalog,
      this.config.log,
    );
    const claudeTranscript = claudeTranscriptFor(
      this.config,
      sessionId,
      cwd,
      profile,
      () => session.workingDirectory.current,
    );
    // Before anything is opened: nothing is left to close when it is refused.
    const unreadable = await claudeTranscript?.unreadable();
    if (unreadable !== undefined) throw invalidParams(unreadable);
    const hooks = await openSessionHooks(
      this.config,
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
      ...this.#fromConfig(place, cwd, profile),
      client,
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
}
