/**
 * One ACP session: where it works, its permission mode, the conversation, its transcript, and
 * the turn in flight. Everything a turn sends to the client goes through `send`, which also
 * records it, so the transcript holds what the client saw (less the paragraph breaks between
 * messages, added as they are sent: message_paragraphs.ts).
 */
import type {
  AgentContext,
  ContentBlock,
  NoticeSeverity,
  SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { McpServers } from "../../agent/mcp/mcp_servers.ts";
import type { ConversationItem, ModelSession } from "../../model/model.ts";
import type { TranscriptRecord } from "../../agent/transcript/transcript_record.ts";
import {
  type SessionSettings,
  settingsRecord,
} from "../../agent/transcript/transcript_settings.ts";
import type { TranscriptWriter } from "../../agent/transcript/transcript_writer.ts";
import type { ClaudeTranscript } from "../../agent/transcript/claude_transcript.ts";
import type { EnvAssignment } from "../../agent/shell/session_env_file.ts";
import type { PermissionModeId } from "../../agent/permissions/permission_policy.ts";
import type { ToolKit } from "../../agent/tools/tool_kit.ts";
import { WorkingDirectory } from "../../agent/shell/working_directory.ts";
import type { ModelCatalog } from "../model_catalog.ts";
import type { ModelProvider } from "../model_provider.ts";
import { showModelLoadProgress } from "../load_progress.ts";
import { invalidParams } from "../rpc_error.ts";
import { isNoticeText, noticeOf, noticeUpdate, transcriptFailureNotice } from "./notice_update.ts";
import { type OpenModelSession, SessionModelContext } from "./session_model_context.ts";
import { boundedWait, SessionBackground } from "./session_background.ts";
import {
  asParagraph,
  THREAD_START,
  type ThreadTail,
  threadTailAfter,
} from "./message_paragraphs.ts";
import type { SessionHookFirer } from "./session_hook_firer.ts";
import { type ClientFeatures, NO_CLIENT_FEATURES } from "../client_features.ts";
import { sessionTitle } from "../../agent/transcript/session_title.ts";
import type { NotificationDelays } from "./notification_hooks.ts";

export interface AgentSessionInit {
  readonly id: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  /** The allowed roots, resolved: the launch directory, HOME and the additional directories. */
  readonly roots: readonly string[];
  readonly settings: SessionSettings;
  /** The transcript holds these settings already (a restored session's): no record is due. */
  readonly settingsRecorded: boolean;
  readonly conversation: ConversationItem[];
  /** The summary of what was compacted away, for the system prompt (a restored session's). */
  readonly contextSummary?: string;
  readonly transcript: TranscriptWriter;
  /** The `claude` profile's transcript for hooks (`transcript_path`), opened; absent otherwise. */
  readonly claudeTranscript?: ClaudeTranscript;
  readonly hooks: SessionHookFirer;
  /** The session's MCP servers, connecting from the start. */
  readonly mcp: McpServers;
  /** The profile's built-in tools, with what they remember for this session. */
  readonly toolKit: ToolKit;
  readonly client: AgentContext;
  /** The agent's default model: the session's when there is no catalog. */
  readonly models: ModelProvider;
  /** The models the session can pick (the "model" config option); absent, `models` only. */
  readonly modelCatalog?: ModelCatalog;
  readonly log: (line: string) => void;
  /** Tool calls the transcript already holds, so ids stay unique across a load. */
  readonly toolCallsSoFar?: number;
  /** The first prompt the transcript holds (a restored session's): it names the session. */
  readonly firstPrompt?: readonly ContentBlock[];
  /** Shorter waits before Notification's `idle_prompt` and `permission_prompt` (tests). */
  readonly notificationDelays?: NotificationDelays;
}

export class AgentSession {
  readonly id: string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly roots: readonly string[];
  /**
   * Where the session is now (working_directory.ts): its commands start there, its file tools
   * resolve relative paths against it and its hooks see it as `cwd`. It moves only in a profile
   * whose shell keeps its directory; `cwd` stays where the session was opened (the settings
   * chain, the transcripts, the system prompt).
   */
  readonly workingDirectory: WorkingDirectory;
  mode: PermissionModeId;
  /** The "stop hooks continue the turn" config option. */
  stopHooksContinue = false;
  /**
   * The "model" config option: the catalog id picked for the next turn; undefined follows the
   * agent's default model.
   */
  modelChoice: string | undefined;
  readonly modelCatalog: ModelCatalog | undefined;
  readonly conversation: ConversationItem[];
  /**
   * What the conversation held before its last compaction, summarised: the system prompt's last
   * part (system_prompt.ts); undefined before any compaction and after `/clear`.
   */
  contextSummary: string | undefined;
  /** Tool names the user answered "always" for, for the rest of the session. */
  readonly alwaysAllowed = new Set<string>();
  readonly alwaysRejected: Set<string>;
  readonly transcript: TranscriptWriter;
  readonly claudeTranscript: ClaudeTranscript | undefined;
  readonly hooks: SessionHookFirer;
  readonly mcp: McpServers;
  readonly toolKit: ToolKit;
  /** What SessionStart hooks gave the model, for the start of its context. */
  startContext: readonly string[] = [];
  /** What the project's instruction files say, for the system prompt; undefined until read. */
  projectInstructions: readonly string[] | undefined;
  /**
   * What SessionStart hooks wrote to their `CLAUDE_ENV_FILE`s: set for every later shell tool
   * call of the session, never for a hook.
   */
  sessionEnv: readonly EnvAssignment[] = [];
  /** The model's name once its context is open (the Claude-format transcript names it). */
  modelName: string | undefined;
  readonly notificationDelays: NotificationDelays;
  /**
   * When the user last did something the agent sees (`performance.now()`): a prompt, an answer
   * to a permission question. Claude Code's permission notification waits on it.
   */
  lastInteractionAt = performance.now();
  /** What the session runs beside its turns, and the wait for its next prompt. */
  readonly #background = new SessionBackground();
  /** Aborted when the session closes: hooks that run beside a turn (Notification) end with it. */
  readonly background: AbortController = this.#background.controller;
  readonly client: AgentContext;
  /**
   * What the client advertised that changes what it is sent (boolean options, notices): set
   * by the connection that takes the session, before anything is sent to it.
   */
  clientFeatures: ClientFeatures = NO_CLIENT_FEATURES;
  readonly log: (line: string) => void;
  /**
   * The session's title, as `session/list` gives it (the first prompt's first line); null while
   * it has none. `named` turns true at the first prompt, whatever it holds: that prompt names
   * the session for good.
   */
  #title: { readonly named: boolean; readonly title: string | null };
  /** The model context the turns use, with the choice it was opened on. */
  readonly #model: SessionModelContext;
  #turn:
    | { readonly controller: AbortController; readonly ended: PromiseWithResolvers<void> }
    | undefined;
  #toolCallCount = 0;
  /** The settings the transcript holds last, to record only changes. */
  #recordedSettings: string | undefined;
  #watchingProblems = false;
  #closed = false;
  /** What the client's thread shows last: a message after another's text starts a paragraph. */
  #tail: ThreadTail = THREAD_START;

  constructor(init: AgentSessionInit) {
    this.id = init.id;
    this.cwd = init.cwd;
    this.additionalDirectories = init.additionalDirectories;
    this.roots = init.roots;
    this.workingDirectory = new WorkingDirectory(init.cwd, init.additionalDirectories);
    this.mode = init.settings.mode;
    this.stopHooksContinue = init.settings.stopHooksContinue;
    this.modelChoice = init.settings.model;
    this.modelCatalog = init.modelCatalog;
    this.alwaysRejected = new Set(init.settings.alwaysRejected);
    this.conversation = init.conversation;
    this.contextSummary = init.contextSummary;
    this.transcript = init.transcript;
    this.claudeTranscript = init.claudeTranscript;
    this.hooks = init.hooks;
    this.mcp = init.mcp;
    this.toolKit = init.toolKit;
    this.client = init.client;
    this.log = init.log;
    this.#model = new SessionModelContext({
      sessionId: init.id,
      models: init.models,
      catalog: init.modelCatalog,
      log: init.log,
      onModelName: (name) => (this.modelName = name),
    });
    this.notificationDelays = init.notificationDelays ?? {};
    this.#toolCallCount = init.toolCallsSoFar ?? 0;
    this.#title = init.firstPrompt === undefined
      ? { named: false, title: null }
      : { named: true, title: sessionTitle(init.firstPrompt) };
    if (init.settingsRecorded) this.#recordedSettings = JSON.stringify(this.settings);
  }

  /** The catalog id of the model the next turn runs on; undefined without a catalog. */
  get modelId(): string | undefined {
    const catalog = this.modelCatalog;
    return catalog === undefined ? undefined : this.modelChoice ?? catalog.defaultId;
  }

  /**
   * The session's own context in the model, opened on first use. Called as a turn starts, before
   * its first generation: when the model choice changed since the context was opened, that
   * context is idle (the turn that used it has ended), so it is freed and one on the chosen
   * model is opened. It sees the whole conversation at its first generation, like any context.
   */
  modelSession(): Promise<ModelSession> {
    let open: OpenModelSession;
    try {
      open = this.#model.use(this.modelId);
    } catch (error) {
      return Promise.reject(error);
    }
    // While the model loads the editor sees how far (sent, not recorded), until a cancel.
    const signal = this.#turn?.controller.signal;
    const show = () =>
      showModelLoadProgress(open.provider, (u) => this.notify(u), signal, {
        say: (text) => this.liveNotice(text),
      });
    if (open.after === undefined) show();
    else open.after.then(show);
    return open.context;
  }

  /** Sends a conversation update to the client and records it in the transcript. */
  send(update: SessionUpdate): void {
    this.record({ type: "update", update });
    this.notify(update);
  }

  /** Sends session state (modes, config, commands): recorded, but not part of a replay. */
  sendState(update: SessionUpdate): void {
    this.record({ type: "update", update, replay: false });
    this.notify(update);
  }

  /** Work that runs beside the turns (Notification hooks): closing waits for it to end. */
  runInBackground(work: Promise<unknown>): void {
    this.#background.run(work);
  }

  /**
   * Shows the user something no model should read (hook notices): a `notice` update to a client
   * that takes them, a marked agent message to others. The transcript holds the marked message,
   * which a load replays to a client without notices (a notice is no part of the history).
   */
  notice(text: string, severity: NoticeSeverity = "info"): void {
    const update = noticeUpdate(text);
    this.record({ type: "update", update });
    this.liveNotice(text, severity);
  }

  /**
   * A notice that is not recorded: about the transcript itself (lines skipped when it was read),
   * which each later load would replay beside its own, or about the model's download.
   */
  liveNotice(text: string, severity: NoticeSeverity = "info"): void {
    this.notify(this.clientFeatures.notices ? noticeOf(text, severity) : noticeUpdate(text));
  }

  /** Same as `liveNotice`: what a load found wrong with the transcript. */
  transcriptNotice(text: string): void {
    this.liveNotice(text, "warning");
  }

  /** Tells the client the session's title, when it has one (after a load or resume). */
  announceTitle(): void {
    if (this.#title.title !== null) this.#sendTitle(this.#title.title);
  }

  /** The first prompt names the session: the client learns the title `session/list` will give. */
  #noteTitle(prompt: readonly ContentBlock[]): void {
    if (this.#title.named) return;
    this.#title = { named: true, title: sessionTitle(prompt) };
    this.announceTitle();
  }

  #sendTitle(title: string): void {
    this.notify({ sessionUpdate: "session_info_update", title });
  }

  /**
   * Tells the user, once per problem, about MCP servers that failed to start or stopped (the
   * session goes on without their tools) and about a transcript that stops being written (a full
   * disk: the session goes on, but cannot be brought back past that point). Called once the client
   * knows the session; a session that is live already (loaded again) is watched once.
   */
  reportProblems(): void {
    if (this.#watchingProblems) return;
    this.#watchingProblems = true;
    this.mcp.watch((problem) => this.notice(problem, "warning"));
    this.transcript.onFailure((message) =>
      this.notice(transcriptFailureNotice(message), "warning")
    );
  }

  get settings(): SessionSettings {
    return {
      mode: this.mode,
      stopHooksContinue: this.stopHooksContinue,
      alwaysRejected: [...this.alwaysRejected].sort(),
      ...(this.modelChoice === undefined ? {} : { model: this.modelChoice }),
    };
  }

  /** Records the settings when they changed since the transcript last held them. */
  recordSettings(): void {
    const settings = this.settings;
    const key = JSON.stringify(settings);
    if (key === this.#recordedSettings) return;
    this.#recordedSettings = key;
    this.record(settingsRecord(settings));
  }

  /** Sends the updates from the transcript again (`session/load`): already recorded. */
  replay(updates: readonly SessionUpdate[]): void {
    // The client shows the replayed thread from its start.
    this.#tail = THREAD_START;
    for (const update of updates) {
      // A client with notices saw them apart from the thread, which they are no part of.
      if (this.clientFeatures.notices && isNoticeText(update)) continue;
      this.notify(update);
    }
  }

  private notify(update: SessionUpdate): void {
    if (this.#closed) return;
    const shown = asParagraph(update, this.#tail);
    this.#tail = threadTailAfter(update, this.#tail);
    this.client.notify("session/update", { sessionId: this.id, update: shown }).catch((error) =>
      this.log(`Cannot send a session update: ${error}`)
    );
  }

  record(record: TranscriptRecord): void {
    // A closed session's transcript is complete: something late (a timer, a hook's notice)
    // must not start a write nobody waits for.
    if (this.#closed) return;
    this.transcript.append(record);
    if (record.type === "prompt") this.#noteTitle(record.prompt);
    // The call's permission answer may have been "always reject", which a restore must keep.
    if (record.type === "tool_call") this.recordSettings();
  }

  nextToolCallId(): string {
    this.#toolCallCount++;
    return `call_${this.#toolCallCount}`;
  }

  get turnRunning(): boolean {
    return this.#turn !== undefined;
  }

  /** Starts a turn; a client that sends a second prompt before the first answered gets -32602. */
  beginTurn(): AbortSignal {
    if (this.#turn) throw invalidParams(`session "${this.id}" is already running a prompt`);
    this.#background.clearIdle();
    this.lastInteractionAt = performance.now();
    this.#turn = { controller: new AbortController(), ended: Promise.withResolvers<void>() };
    // The client shows the user's prompt: what the turn says starts after it.
    this.#tail = THREAD_START;
    return this.#turn.controller.signal;
  }

  endTurn(): void {
    this.#turn?.ended.resolve();
    this.#turn = undefined;
  }

  /**
   * Runs `work` once the session has waited `afterMs` for its next prompt (the `idle_prompt`
   * notification); a prompt that comes first, or the session's close, calls it off.
   */
  whenIdleFor(afterMs: number, work: () => void): void {
    this.#background.whenIdleFor(afterMs, work);
  }

  /** Aborts the turn in flight: generation, tools and pending permission requests. */
  cancel(): void {
    this.#turn?.controller.abort();
  }

  /**
   * Cancels the turn in flight and waits (a bounded time) for it to wind down, so that the tools
   * it started are killed and reaped before the agent exits.
   */
  async close(): Promise<void> {
    const turn = this.#turn;
    this.cancel();
    this.#background.stop();
    if (turn) await boundedWait(turn.ended.promise);
    // Stopped above, background hooks are being killed: wait for them, so none outlives us.
    await this.#background.settled();
    this.#closed = true;
    // Its servers end with it, process groups and all; each is bounded by its kill grace.
    await this.mcp.close();
    await this.transcript.close();
    await this.claudeTranscript?.close();
    // A context still being opened (the model may be downloading) is freed when it arrives:
    // closing never waits for a load.
    this.#model.letGo();
  }
}
