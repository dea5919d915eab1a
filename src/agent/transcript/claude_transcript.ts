/**
 * A session's transcript in Claude Code's format (claude-compat.md §8), for the `claude` profile:
 * hooks get its path as `transcript_path` and read the conversation from it, as they read
 * Claude Code's. It is written beside `raw.jsonl`, never instead of it: `raw.jsonl` stays what a
 * load replays from, and nothing is read back from this file but the leaf of its chain.
 *
 * Every record with a uuid hangs off the one before it (one linear `parentUuid` chain, continued
 * when the session is brought back). The seams call the methods in the order things happen and
 * the session's hook firer flushes before any hook runs, so a hook reads everything up to its
 * own firing: a PreToolUse hook finds the call's `tool_use`, a Stop hook the reply it judges.
 *
 * This file is a courtesy to hooks, not the session's record: when it cannot be opened or
 * written, that is logged once and the session goes on without it. One thing is not let go: a
 * session brought back whose file is there but is no transcript (a FIFO, a link to a device, a
 * file over the limit) is refused, as it is for a raw.jsonl of that kind (`unreadable`).
 */
import { z } from "zod";
import { ConfigFileRefused, readConfigFile } from "../../config_file.ts";
import { errorMessage } from "../../error.ts";
import type { HookPayload } from "../../hooks/handler_runner.ts";
import type { HookFiring } from "../../hooks/hook_engine.ts";
import type { GenerateStop, TokenCounts } from "../../model/model.ts";
import {
  type AssistantBlock,
  type AssistantMessage,
  assistantRecord,
  type ChainLink,
  type ClaudeRecord,
  claudeStopReason,
  compactBoundaryRecord,
  compactSummaryRecord,
  errorToolUseResult,
  hookAttachmentRecord,
  lastPromptRecord,
  metaUserRecord,
  promptRecord,
  type RecordTail,
  stopHookSummaryRecord,
  textBlock,
  toolResultBlock,
  toolResultRecord,
  toolUseBlock,
} from "./claude_transcript_records.ts";
import { renderedFor } from "./claude_hook_attachments.ts";
import { firingRecords } from "./claude_hook_records.ts";
import { TRANSCRIPT_MAX_BYTES } from "./transcript_reader.ts";
import { TranscriptWriter } from "./transcript_writer.ts";

export interface ClaudeTranscriptInit extends RecordTail {
  readonly path: string;
  readonly log: (line: string) => void;
  /** The clock of `timestamp`s (tests pin it). */
  readonly now?: () => Date;
  /** Makes the uuids of records and the ids of replies (tests pin them). */
  readonly newUuid?: () => string;
  /**
   * Where the session's shell is now, for each record's `cwd` (default: `cwd`): Claude Code
   * writes the directory its Bash has moved to, not the one the session started in.
   */
  readonly currentCwd?: () => string;
}

/** A line of an existing transcript that carries a uuid: the chain goes on from the last one. */
const Chained = z.looseObject({ uuid: z.string() });

/** Where the chain of an existing file ends (null: empty or missing), or why it was not read. */
type ChainEnd =
  | { readonly ok: true; readonly leaf: string | null }
  /** `refused`: the file is there but is no transcript (config_file.ts's `ConfigFileRefused`). */
  | { readonly ok: false; readonly refused: boolean; readonly message: string };

export class ClaudeTranscript {
  readonly path: string;
  readonly #startTail: RecordTail;
  readonly #currentCwd: (() => string) | undefined;
  readonly #log: (line: string) => void;
  readonly #now: () => Date;
  readonly #newUuid: () => string;
  /** Records go to a private file it locks, one JSON line each. */
  #sink: TranscriptWriter<object> | undefined;
  #leaf: string | null = null;
  /** The reply whose blocks are being written (a tool call's `tool_use` joins it). */
  #reply: AssistantMessage | undefined;
  /** Each `tool_use` id → the uuid of the assistant record holding it. */
  readonly #toolUses = new Map<string, string>();
  /** The prompt of the turn in flight as the user typed it, for `last-prompt`. */
  #typedPrompt: string | undefined;
  /**
   * What the UserPromptSubmit hooks did: written after the prompt they answer, as Claude Code
   * orders them, and dropped with a prompt they refused (it never reached the model).
   */
  #heldForPrompt: ((link: ChainLink) => ClaudeRecord)[] = [];
  #closed = false;
  /** What the file held when it was first looked at: where its chain ends. */
  #chainEndRead: Promise<ChainEnd> | undefined;

  /** What every record ends with, `cwd` where the session's shell is as the record is made. */
  get #tail(): RecordTail {
    return this.#currentCwd === undefined
      ? this.#startTail
      : { ...this.#startTail, cwd: this.#currentCwd() };
  }

  /** Writes nothing until `open`: hooks can be wired to it before the file exists. */
  constructor(init: ClaudeTranscriptInit) {
    this.path = init.path;
    this.#startTail = { cwd: init.cwd, sessionId: init.sessionId, version: init.version };
    this.#currentCwd = init.currentCwd;
    this.#log = init.log;
    this.#now = init.now ?? (() => new Date());
    this.#newUuid = init.newUuid ?? (() => crypto.randomUUID());
  }

  /**
   * Why the file already at the path cannot be this session's transcript (a FIFO, a device, a
   * file over `TRANSCRIPT_MAX_BYTES`), or undefined: a session brought back is refused then, as
   * for its raw.jsonl, rather than handing hooks a `transcript_path` that never ends. Reads where
   * the chain ends, once, for `open`; any other failure is left to `open` to log.
   */
  async unreadable(): Promise<string | undefined> {
    const end = await this.#chainEnd();
    return end.ok || !end.refused ? undefined : end.message;
  }

  /**
   * Opens the file (0600, its new directories 0700) and finds where the chain ends in what it
   * holds already. Never throws: a file that cannot be opened is logged, and nothing is written.
   */
  async open(): Promise<void> {
    if (this.#sink !== undefined || this.#closed) return;
    const end = await this.#chainEnd();
    const goesOn = "the session goes on, and hooks that read transcript_path find no transcript";
    if (!end.ok) {
      this.#log(`${end.message}; ${goesOn}`);
      return;
    }
    this.#leaf = end.leaf;
    try {
      this.#sink = await TranscriptWriter.open<object>(this.path, this.#log);
    } catch (error) {
      this.#log(
        `Cannot open the Claude-format transcript "${this.path}": ${
          errorMessage(error)
        }; ${goesOn}`,
      );
    }
  }

  #chainEnd(): Promise<ChainEnd> {
    this.#chainEndRead ??= lastChainedUuid(this.path).then(
      (leaf): ChainEnd => ({ ok: true, leaf }),
      (error): ChainEnd => {
        const refused = error instanceof ConfigFileRefused;
        const verb = refused ? "read" : "open";
        const message = `Cannot ${verb} the Claude-format transcript "${this.path}": ${
          errorMessage(error)
        }`;
        return { ok: false, refused, message };
      },
    );
    return this.#chainEndRead;
  }

  /**
   * The prompt as the user typed it, once its UserPromptSubmit hooks let it through. What they
   * added follows it as their attachments, not inside it: Claude Code's prompt record holds the
   * typed text only, so a hook reading the last prompt finds it without our system reminders.
   */
  prompt(prompt: {
    readonly promptId: string;
    readonly text: string;
    readonly permissionMode: string;
  }): void {
    this.#typedPrompt = prompt.text;
    this.#chain((link) => promptRecord(link, this.#tail, prompt));
    for (const build of this.#heldForPrompt.splice(0)) this.#chain(build);
  }

  /** Hook text the model read as the next user message (a Stop hook's feedback). */
  hookFeedback(feedback: { readonly promptId: string; readonly content: string }): void {
    this.#chain((link) => metaUserRecord(link, this.#tail, feedback));
  }

  /**
   * A finished generation: its text as one record now; each tool call it made joins the same
   * reply when the call starts (`toolUse`). Thoughts are not written (Claude Code's thinking
   * blocks carry a signature no local model has).
   */
  reply(reply: {
    readonly model: string;
    readonly text: string;
    readonly stop: GenerateStop;
    readonly calledTools: boolean;
    readonly tokens: TokenCounts;
  }): void {
    const id = this.#newUuid().replaceAll("-", "");
    this.#reply = {
      id: `msg_${id}`,
      requestId: `req_${id}`,
      model: reply.model,
      stopReason: claudeStopReason(reply.stop, reply.calledTools),
      usage: { inputTokens: reply.tokens.prompt, outputTokens: reply.tokens.generated },
    };
    if (reply.text !== "") this.#assistant(textBlock(reply.text));
  }

  /** A tool call, before anything checks it or any hook sees it. */
  toolUse(call: { readonly id: string; readonly name: string; readonly input: unknown }): void {
    const uuid = this.#assistant(toolUseBlock(call.id, call.name, call.input));
    if (uuid !== undefined) this.#toolUses.set(call.id, uuid);
  }

  /**
   * A call's result as the model reads it. `toolResponse` is PostToolUse's `tool_response`;
   * `flagsSuccess`: the tool's success carries `is_error:false` (Bash's does, §0.5).
   */
  toolResult(result: {
    readonly promptId: string;
    readonly toolUseId: string;
    readonly content: string;
    readonly failed: boolean;
    readonly flagsSuccess: boolean;
    readonly toolResponse: unknown;
  }): void {
    const shape = result.failed ? "error" : result.flagsSuccess ? "flagged_success" : "success";
    const sourceToolAssistantUUID = this.#toolUses.get(result.toolUseId);
    this.#toolUses.delete(result.toolUseId);
    this.#chain((link) =>
      toolResultRecord(link, this.#tail, {
        promptId: result.promptId,
        block: toolResultBlock(result.toolUseId, result.content, shape),
        toolUseResult: result.failed ? errorToolUseResult(result.content) : result.toolResponse,
        sourceToolAssistantUUID,
      })
    );
  }

  /**
   * What a firing's hooks did, as Claude Code writes it for the event (claude_hook_records.ts):
   * each hook's record, what the event words itself, Stop's `stop_hook_summary`. `sent`: the
   * payload the hooks were sent (absent when none ran). UserPromptSubmit's wait for the prompt.
   */
  recordFiring(firing: HookFiring, sent: HookPayload | undefined): void {
    const records = firingRecords(firing, sent, this.#newUuid).map(
      (record): (link: ChainLink) => ClaudeRecord =>
        record.kind === "stop_summary"
          ? (link) => stopHookSummaryRecord(link, this.#tail, record.summary)
          : (link) =>
            hookAttachmentRecord(
              link,
              this.#tail,
              record.attachment,
              renderedFor(record.attachment),
            ),
    );
    if (firing.event === "UserPromptSubmit") this.#heldForPrompt.push(...records);
    else for (const build of records) this.#chain(build);
  }

  /**
   * A compaction: the `compact_boundary` the chain starts again from (linked to the record it
   * replaced the history up to by `logicalParentUuid`), then the summary the conversation goes on
   * from, as the user message the model reads (`isCompactSummary`). Later records hang off the
   * summary. `preTokens`: what the conversation took before, in tokens.
   */
  compacted(compaction: {
    readonly trigger: "manual" | "auto";
    readonly preTokens: number;
    /** The text the model reads in place of the history it replaces. */
    readonly summary: string;
    /** The `session/prompt` it happened in. */
    readonly promptId?: string;
  }): void {
    this.#chain((link) => compactBoundaryRecord(link, this.#tail, compaction));
    this.#chain((link) =>
      compactSummaryRecord(link, this.#tail, {
        promptId: compaction.promptId,
        content: compaction.summary,
      })
    );
  }

  /** The end of a turn: `last-prompt` names the turn's prompt and the chain's leaf. */
  endTurn(): void {
    const typed = this.#typedPrompt;
    this.#typedPrompt = undefined;
    this.#reply = undefined;
    this.#heldForPrompt = [];
    if (typed === undefined) return;
    this.#sink?.append(lastPromptRecord(typed, this.#leaf, this.#tail.sessionId));
  }

  /** Resolves when every record so far is on disk (or was dropped after a failed write). */
  async flush(): Promise<void> {
    await this.#sink?.flush();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#sink?.close();
  }

  /** One block of the current reply; its record's uuid, or undefined when none was written. */
  #assistant(block: AssistantBlock): string | undefined {
    const reply = this.#reply;
    if (reply === undefined) return undefined;
    return this.#chain((link) => assistantRecord(link, this.#tail, reply, block));
  }

  /** Appends the next record of the chain; its uuid. */
  #chain(build: (link: ChainLink) => ClaudeRecord): string | undefined {
    if (this.#sink === undefined || this.#closed) return undefined;
    const uuid = this.#newUuid();
    this.#sink.append(
      build({ parentUuid: this.#leaf, uuid, timestamp: this.#now().toISOString() }),
    );
    this.#leaf = uuid;
    return uuid;
  }
}

/**
 * The uuid of the last chained record in the file; null when it holds none or is missing. Read
 * as every file is that the agent reads for someone (config_file.ts): a FIFO is never opened, a
 * device never read, and at most `TRANSCRIPT_MAX_BYTES` are.
 */
async function lastChainedUuid(path: string): Promise<string | null> {
  let text: string;
  try {
    text = await readConfigFile(path, { maxBytes: TRANSCRIPT_MAX_BYTES });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // A line torn by a crash: the chain goes on from the last whole record.
      continue;
    }
    const chained = Chained.safeParse(value);
    if (chained.success) return chained.data.uuid;
  }
  return null;
}
