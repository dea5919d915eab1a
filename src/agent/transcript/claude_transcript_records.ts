/**
 * The records of a transcript in Claude Code's format (claude-compat.md §8), as pure builders:
 * each takes where the record sits in the chain and what it says, and returns the object with its
 * keys in the order Claude Code 2.1.332 writes them (a hook may print or diff a record, so the
 * order is part of the shape).
 *
 * Only the fields whose facts llama-agent has are written. Left out of what §8 lists: the
 * prompt's `promptSource`, `sentAtMs`, `rowSource`, `turnOrigin` and `turnPosition`; the
 * assistant's `stop_details`, `toolInputStreamMs`, `apiBlockIndex`, `requestRef`,
 * `requestedModel`, `promptCacheRequested`, `effort`, `perTurnEffort` and `madeBy`; a tool
 * result's `permissionDecision`; and `gitBranch` in the tail: Claude Code wrote `"HEAD"` where it
 * was observed, and a fixed `"HEAD"` would tell a hook that every project is on a detached head.
 */
import { type GenerateStop, turnEndOf } from "../../model/model.ts";
import type { HookAttachment } from "./claude_hook_attachments.ts";

/** Where a chained record sits: its parent (null for the first) and its own id, and when. */
export interface ChainLink {
  readonly parentUuid: string | null;
  readonly uuid: string;
  readonly timestamp: string;
}

/** Whose session the record belongs to: the common tail of every chained record. */
export interface RecordTail {
  readonly cwd: string;
  readonly sessionId: string;
  /** llama-agent's version, where Claude Code writes its own. */
  readonly version: string;
}

function tailOf(tail: RecordTail) {
  return {
    userType: "external",
    entrypoint: "sdk-cli",
    cwd: tail.cwd,
    sessionId: tail.sessionId,
    version: tail.version,
  } as const;
}

/** The prompt as the user typed it: `message.content` is a plain string. */
export function promptRecord(
  link: ChainLink,
  tail: RecordTail,
  prompt: { readonly promptId: string; readonly text: string; readonly permissionMode: string },
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    promptId: prompt.promptId,
    type: "user",
    message: { role: "user", content: prompt.text },
    uuid: link.uuid,
    timestamp: link.timestamp,
    permissionMode: prompt.permissionMode,
    ...tailOf(tail),
  } as const;
}

/**
 * Text the model read as a user message that no one typed (a Stop hook's feedback): marked
 * `isMeta`, as Claude Code marks the messages it makes itself (inferred: not observed in §8).
 */
export function metaUserRecord(
  link: ChainLink,
  tail: RecordTail,
  message: { readonly promptId: string; readonly content: string },
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    promptId: message.promptId,
    type: "user",
    message: { role: "user", content: message.content },
    isMeta: true,
    uuid: link.uuid,
    timestamp: link.timestamp,
    ...tailOf(tail),
  } as const;
}

export type ClaudeStopReason = "end_turn" | "tool_use" | "max_tokens";

/**
 * The API's `stop_reason` for a generation: `tool_use` when it asked for tools; null for one cut
 * short by a cancel (the API's value for a message that never finished).
 */
export function claudeStopReason(
  stop: GenerateStop,
  calledTools: boolean,
): ClaudeStopReason | null {
  if (calledTools) return "tool_use";
  const end = turnEndOf(stop);
  return end === "cancelled" ? null : end;
}

/** One model reply: each of its content blocks is written as a record of its own. */
export interface AssistantMessage {
  /** `msg_…`, shared by the records of one reply. */
  readonly id: string;
  /** `req_…`, shared likewise. */
  readonly requestId: string;
  readonly model: string;
  readonly stopReason: ClaudeStopReason | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

export function textBlock(text: string) {
  return { type: "text", text } as const;
}

export function toolUseBlock(id: string, name: string, input: unknown) {
  return { type: "tool_use", id, name, input } as const;
}

export type AssistantBlock = ReturnType<typeof textBlock> | ReturnType<typeof toolUseBlock>;

/**
 * One content block of a reply. Every block of a reply carries the reply's `stop_reason`
 * (inferred: only single-block replies were observed, each in a record of its own).
 */
export function assistantRecord(
  link: ChainLink,
  tail: RecordTail,
  message: AssistantMessage,
  block: AssistantBlock,
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    message: {
      id: message.id,
      type: "message",
      role: "assistant",
      model: message.model,
      content: [block],
      stop_reason: message.stopReason,
      stop_sequence: null,
      usage: {
        input_tokens: message.usage.inputTokens,
        output_tokens: message.usage.outputTokens,
      },
    },
    requestId: message.requestId,
    type: "assistant",
    uuid: link.uuid,
    timestamp: link.timestamp,
    ...tailOf(tail),
  } as const;
}

/**
 * How a result block looks (§0.5): a file tool's success has no `is_error` key, Bash's success
 * has `is_error:false`, and every error leads with `type` and ends with `tool_use_id`.
 */
export type ToolResultShape = "success" | "flagged_success" | "error";

export function toolResultBlock(toolUseId: string, content: string, shape: ToolResultShape) {
  switch (shape) {
    case "success":
      return { tool_use_id: toolUseId, type: "tool_result", content } as const;
    case "flagged_success":
      return { tool_use_id: toolUseId, type: "tool_result", content, is_error: false } as const;
    case "error":
      return { type: "tool_result", content, is_error: true, tool_use_id: toolUseId } as const;
    default:
      return shape satisfies never;
  }
}

export type ToolResultBlock = ReturnType<typeof toolResultBlock>;

/**
 * `toolUseResult` of a failed call (§0.7): `Error: <message>`, the message being what the model
 * read without the `<tool_use_error>` wrapper; a message that starts with `Error: ` already is
 * not prefixed twice (inferred).
 */
export function errorToolUseResult(modelText: string): string {
  const unwrapped = /^<tool_use_error>([\s\S]*)<\/tool_use_error>$/.exec(modelText)?.[1] ??
    modelText;
  return unwrapped.startsWith("Error: ") ? unwrapped : `Error: ${unwrapped}`;
}

/**
 * The user record that carries a tool's result back to the model. `toolUseResult` is the
 * PostToolUse `tool_response` on success, `errorToolUseResult(...)` on failure.
 */
export function toolResultRecord(
  link: ChainLink,
  tail: RecordTail,
  result: {
    readonly promptId: string;
    readonly block: ToolResultBlock;
    readonly toolUseResult: unknown;
    /** The assistant record holding the call's `tool_use`; absent when none was written. */
    readonly sourceToolAssistantUUID: string | undefined;
  },
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    promptId: result.promptId,
    type: "user",
    message: { role: "user", content: [result.block] },
    uuid: link.uuid,
    timestamp: link.timestamp,
    toolUseResult: result.toolUseResult,
    ...(result.sourceToolAssistantUUID === undefined
      ? {}
      : { sourceToolAssistantUUID: result.sourceToolAssistantUUID }),
    ...tailOf(tail),
  } as const;
}

/**
 * A hook's attachment (claude_hook_attachments.ts); `rendered`, where the model is shown it, as
 * Claude Code renders it (a system reminder).
 */
export function hookAttachmentRecord(
  link: ChainLink,
  tail: RecordTail,
  attachment: HookAttachment,
  rendered: string | null,
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    attachment,
    type: "attachment",
    uuid: link.uuid,
    timestamp: link.timestamp,
    ...(rendered === null
      ? {}
      : { rendered: [{ content: rendered }], renderedRole: "system" } as const),
    ...tailOf(tail),
  } as const;
}

/** What the Stop hooks of one firing did. */
export interface StopHookSummary {
  readonly hookInfos: readonly { readonly command: string; readonly durationMs: number }[];
  /** Block reasons, then the errors of hooks that gave no usable answer. */
  readonly hookErrors: readonly string[];
  /** Which of `hookErrors` are errors rather than blocks. */
  readonly failedHookErrorIndexes: readonly number[];
  /** A hook's `continue:false`. */
  readonly preventedContinuation: boolean;
  readonly stopReason: string;
  /** Whether any hook printed something or failed. */
  readonly hasOutput: boolean;
  readonly toolUseID: string;
}

export function stopHookSummaryRecord(link: ChainLink, tail: RecordTail, summary: StopHookSummary) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    type: "system",
    subtype: "stop_hook_summary",
    hookCount: summary.hookInfos.length,
    hookInfos: summary.hookInfos.map(({ command, durationMs }) => ({ command, durationMs })),
    hookErrors: [...summary.hookErrors],
    failedHookErrorIndexes: [...summary.failedHookErrorIndexes],
    hookAdditionalContext: [],
    preventedContinuation: summary.preventedContinuation,
    stopReason: summary.stopReason,
    hasOutput: summary.hasOutput,
    level: "suggestion",
    timestamp: link.timestamp,
    uuid: link.uuid,
    toolUseID: summary.toolUseID,
    ...tailOf(tail),
  } as const;
}

/**
 * Where a compaction cut the conversation: the chain starts again here (`parentUuid: null`), and
 * `logicalParentUuid` names the record it replaced the history up to (absent when there was
 * none), as Claude Code writes its boundary. `trigger` and `preTokens` (the tokens the
 * conversation took before) are the `compactMetadata` llama-agent has the facts for.
 */
export function compactBoundaryRecord(
  link: ChainLink,
  tail: RecordTail,
  compaction: { readonly trigger: "manual" | "auto"; readonly preTokens: number },
) {
  return {
    parentUuid: null,
    ...(link.parentUuid === null ? {} : { logicalParentUuid: link.parentUuid }),
    isSidechain: false,
    type: "system",
    subtype: "compact_boundary",
    content: "Conversation compacted",
    isMeta: false,
    timestamp: link.timestamp,
    uuid: link.uuid,
    level: "info",
    compactMetadata: { trigger: compaction.trigger, preTokens: compaction.preTokens },
    ...tailOf(tail),
  } as const;
}

/**
 * The summary the conversation goes on from, right after its boundary: a user message marked
 * `isCompactSummary`, and `isVisibleInTranscriptOnly` (the model reads it, the user's view of the
 * conversation shows the boundary instead), as Claude Code writes it.
 */
export function compactSummaryRecord(
  link: ChainLink,
  tail: RecordTail,
  summary: { readonly promptId: string | undefined; readonly content: string },
) {
  return {
    parentUuid: link.parentUuid,
    isSidechain: false,
    ...(summary.promptId === undefined ? {} : { promptId: summary.promptId }),
    type: "user",
    message: { role: "user", content: summary.content },
    isVisibleInTranscriptOnly: true,
    isCompactSummary: true,
    uuid: link.uuid,
    timestamp: link.timestamp,
    ...tailOf(tail),
  } as const;
}

/** Bookkeeping at the end of a turn (no uuid, not chained): the prompt and the chain's leaf. */
export function lastPromptRecord(lastPrompt: string, leafUuid: string | null, sessionId: string) {
  return { type: "last-prompt", lastPrompt, leafUuid, sessionId } as const;
}

export type ClaudeRecord =
  | ReturnType<typeof promptRecord>
  | ReturnType<typeof metaUserRecord>
  | ReturnType<typeof assistantRecord>
  | ReturnType<typeof toolResultRecord>
  | ReturnType<typeof hookAttachmentRecord>
  | ReturnType<typeof stopHookSummaryRecord>
  | ReturnType<typeof compactBoundaryRecord>
  | ReturnType<typeof compactSummaryRecord>
  | ReturnType<typeof lastPromptRecord>;
