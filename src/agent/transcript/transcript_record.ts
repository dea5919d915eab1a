/**
 * One line of a session's `raw.jsonl` (hooks.md §9): the session's start, its settings, every
 * prompt, every `session/update` sent, every tool call with its input and the result the model
 * saw, and every prompt response. `session/load` replays and rebuilds the conversation from these records alone.
 */
import { z } from "zod";
import type { ContentBlock, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { ConversationItem } from "../../model/model.ts";

const isObjectWith = (key: string) => (value: unknown) =>
  typeof value === "object" && value !== null &&
  typeof (value as Record<string, unknown>)[key] === "string";

/** Written by this program and read back by it: a shape check, not a second copy of the ACP schema. */
const SessionUpdateField = z.custom<SessionUpdate>(isObjectWith("sessionUpdate"));
const ContentBlockField = z.custom<ContentBlock>(isObjectWith("type"));
const StopReasonField = z.custom<StopReason>((value) => typeof value === "string");
const ConversationItemField = z.custom<ConversationItem>(isObjectWith("role"));

export const TranscriptRecord = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("session"),
    sessionId: z.string(),
    cwd: z.string(),
    additionalDirectories: z.array(z.string()),
    createdAt: z.string(),
  }),
  z.looseObject({
    type: z.literal("prompt"),
    prompt: z.array(ContentBlockField),
    /** The prompt as the model received it (with what UserPromptSubmit hooks added). */
    text: z.string(),
    /** A hook refused it: the model never saw it. */
    refused: z.boolean().optional(),
  }),
  /**
   * Hook text the model read as a message of its own (a Stop hook's feedback), or, with
   * `inLastResult`, at the end of the last tool result before it, after a blank line
   * (PostToolBatch's context).
   */
  z.looseObject({
    type: z.literal("hook_feedback"),
    text: z.string(),
    inLastResult: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal("update"),
    update: SessionUpdateField,
    /** False for session state (modes, commands): recorded, but not part of what a load replays. */
    replay: z.boolean().optional(),
  }),
  z.looseObject({
    type: z.literal("tool_call"),
    toolCallId: z.string(),
    /** The name the model emitted, or the tool another agent's name ran as (see `repair`). */
    name: z.string(),
    input: z.unknown(),
    status: z.enum(["completed", "failed"]),
    /** What the model was shown as the result. */
    result: z.string(),
    /**
     * How the call was made out of what the model emitted (src/acp/turn/tool_call_repair.ts): the
     * name it wrote (`name` is the tool it ran as), whether it wrote the call as text, used
     * another agent's name, or sent its arguments as a JSON string.
     */
    repair: z.object({
      emittedName: z.string(),
      /** The syntax it was written in, where it was written as text. */
      fromText: z.string().optional(),
      renamed: z.boolean(),
      decodedArguments: z.boolean(),
      /** Not run: what the model read instead. */
      refusal: z.string().optional(),
    }).optional(),
    /**
     * The result is the turn's loop guard's (src/acp/turn/loop_guard.ts): a repeat of a refused call
     * answered without asking or running it, or a call whose result was the same as the same
     * call's just before.
     */
    guard: z.enum(["already_refused", "unchanged"]).optional(),
  }),
  /**
   * The session's settings as they stand, written when it is created and after each change: a
   * load or resume takes the last one. "Always allow" answers are left out on purpose: a session
   * brought back asks again, while its "always reject" answers hold.
   */
  z.looseObject({
    type: z.literal("settings"),
    /** A permission mode id; one this version does not know restores as "always-ask". */
    mode: z.string(),
    stopHooksContinue: z.boolean(),
    alwaysRejected: z.array(z.string()),
    /** The model picked with the "model" option (a catalog id); absent: the agent's default. */
    model: z.string().optional(),
  }),
  /**
   * The conversation as the model reads it from here on, replacing what came before: written
   * when it is compacted (a summary and the latest turns, or older tool results shortened),
   * cleared (`/clear`), or when a prompt
   * the model never read is taken back out. A load rebuilds the same state from it, while the
   * client is still replayed the whole history.
   */
  z.looseObject({
    type: z.literal("conversation"),
    reason: z.enum([
      "compact_manual",
      "compact_auto",
      "results_shortened",
      "clear",
      "prompt_withdrawn",
    ]),
    items: z.array(ConversationItemField),
    /** The summary the system prompt carries from here on; absent: none. */
    summary: z.string().optional(),
    /** Prompt tokens before and after, where they were counted. */
    tokens: z.object({ before: z.number(), after: z.number() }).optional(),
  }),
  /**
   * The last `chars` characters the model streamed as `stream` in the running message were taken
   * back out of it: a repetition stop keeps one copy of what was repeated, and calls the model
   * wrote as text are read as the calls that follow (src/acp/turn/tool_call_repair.ts). The client was
   * shown them (a load replays them); the model never reads them again.
   */
  z.looseObject({
    type: z.literal("taken_back"),
    stream: z.enum(["text", "thought"]),
    chars: z.number().int().nonnegative(),
  }),
  /** A prompt that ended in an error instead of a response. */
  z.looseObject({ type: z.literal("failure"), message: z.string() }),
  z.looseObject({
    type: z.literal("response"),
    stopReason: StopReasonField,
    _meta: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type TranscriptRecord = z.infer<typeof TranscriptRecord>;
export type SessionRecord = Extract<TranscriptRecord, { type: "session" }>;
export type SettingsRecord = Extract<TranscriptRecord, { type: "settings" }>;
