/**
 * What a model emitted, made into the calls a turn runs, after each generation and whatever the
 * backend: small models write calls as text, send their arguments as a JSON string, and call
 * tools by the names other agents gave them (local-models.md).
 *
 * - A call's arguments given as a JSON string holding an object are that object (text that is
 *   not JSON stays text: the tool's check says it is not valid JSON, and where).
 * - A call under another agent's name (`bash`, `run_terminal_cmd`, `str_replace_editor`, the
 *   other profile's names: foreign_tools.ts) is renamed to the profile's own tool, its input
 *   fields with it, before any hook, rule or transcript sees it: `tool_name` is the real name,
 *   so a guard on `Bash` holds for `bash`. An operation with no counterpart is refused, saying
 *   what runs instead.
 * - An answer with no calls whose text is calls (text_tool_calls.ts) becomes those calls. The
 *   call text was already streamed to the client: the user is told it runs as a call, and the
 *   text is taken out of the assistant's message (a `taken_back` record, so that a load reads
 *   the same message), so that the model reads its call as a call.
 *
 * Every repaired call says so: `_meta["llama-agent/repair"]` on its `tool_call`, and `repair` on
 * its transcript record, hold the name the model emitted and what was done.
 */
import { decodeArguments, isJsonObject } from "../../agent/tools/json_arguments.ts";
import { takeBack } from "../../agent/transcript/take_back.ts";
import type { TranscriptRecord } from "../../agent/transcript/transcript_record.ts";
import type {
  AssistantSegment,
  GenerateResult,
  RequestedToolCall,
  ToolDefinition,
} from "../../model/model.ts";
import {
  type CompatProfile,
  foreignToolOf,
  profileTool,
  toolNameOf,
} from "../../profile/compat_profile.ts";
import { translateForeignCall } from "../../profile/foreign_tools.ts";
import { type TextCallSyntax, textToolCalls } from "./text_tool_calls.ts";

/** How a call was made out of what the model emitted. */
export interface CallRepair {
  /** The tool name as the model emitted it. */
  readonly emittedName: string;
  /** Written as text in the answer, in this syntax; absent for a call made as a call. */
  readonly fromText?: TextCallSyntax;
  /** Another agent's name, run as the profile's tool (the call's `name`). */
  readonly renamed: boolean;
  /** The arguments came as a JSON string holding an object, and were decoded. */
  readonly decodedArguments: boolean;
  /** Not run: what the model reads instead (an operation with no counterpart here). */
  readonly refusal?: string;
}

/** A call as the turn runs it: `repair` says how it was made, where it was. */
export interface TurnToolCall extends RequestedToolCall {
  readonly repair?: CallRepair;
}

/** What the repair needs of the session. */
export interface RepairSession {
  readonly toolKit: { readonly profile: CompatProfile };
  record(record: TranscriptRecord): void;
  notice(text: string): void;
}

/**
 * A generation's calls as the turn runs them: its own calls repaired; or, when it made none and
 * ended by itself, the calls its text is (taken out of `segments`, the running assistant message,
 * which must end with this generation's text). Other results are returned as they are.
 */
export function repairAnswer(
  session: RepairSession,
  segments: AssistantSegment[],
  result: GenerateResult,
  tools: readonly ToolDefinition[],
): GenerateResult {
  const { profile } = session.toolKit;
  if (result.toolCalls.length > 0) {
    return { ...result, toolCalls: result.toolCalls.map((call) => repairedCall(profile, call)) };
  }
  // A cut answer ends the turn as cut, with its notice: a call at its end may be half written.
  if (result.stop !== "end") return result;
  const offered = new Set(tools.map((tool) => tool.name));
  const found = textToolCalls(
    result.text,
    (name) =>
      offered.has(name) || profileTool(profile, name) !== undefined ||
      foreignToolOf(profile, name) !== undefined,
  );
  if (found === undefined) return result;
  const callText = result.text.slice(found.start);
  if (!messageText(segments).endsWith(callText)) return result;
  takeBack(segments, "text", callText.length);
  session.record({ type: "taken_back", stream: "text", chars: callText.length });
  const toolCalls = found.calls.map((call) => repairedCall(profile, call, call.syntax));
  session.notice(textCallsNotice(toolCalls));
  return { ...result, toolCalls, stop: "tool_calls" };
}

/**
 * One call with its arguments decoded and its name mapped onto the profile's tools; the call
 * itself when nothing needed doing and it was not written as text.
 */
export function repairedCall(
  profile: CompatProfile,
  call: RequestedToolCall,
  fromText?: TextCallSyntax,
): TurnToolCall {
  const decoded = decodeArguments(call.input);
  const decodedArguments = typeof call.input === "string" && decoded.ok &&
    isJsonObject(decoded.value);
  let input = decodedArguments && decoded.ok ? decoded.value : call.input;
  let name = call.name;
  let refusal: string | undefined;
  const foreign = foreignToolOf(profile, call.name);
  if (foreign !== undefined) {
    const translation = translateForeignCall(
      foreign,
      call.name,
      input,
      (capability) => toolNameOf(profile, capability),
    );
    if (translation.ok) {
      name = toolNameOf(profile, translation.capability);
      input = translation.input;
    } else {
      refusal = decoded.ok
        ? translation.message
        : `The arguments of ${call.name} are not valid JSON: ${decoded.problem}`;
    }
  }
  const renamed = name !== call.name;
  if (fromText === undefined && !renamed && !decodedArguments && refusal === undefined) {
    return call;
  }
  return {
    name,
    input,
    repair: {
      emittedName: call.name,
      ...(fromText === undefined ? {} : { fromText }),
      renamed,
      decodedArguments,
      ...(refusal === undefined ? {} : { refusal }),
    },
  };
}

/** What the user is told of calls the model wrote as text, which they saw as its words. */
export function textCallsNotice(calls: readonly RequestedToolCall[]): string {
  const names = calls.map((call) => call.name).join(", ");
  return calls.length === 1
    ? `The model wrote its tool call as text: it runs as a call to ${names}`
    : `The model wrote ${calls.length} tool calls as text: they run as calls to ${names}`;
}

/** The text of a message, its thoughts left out. */
function messageText(segments: readonly AssistantSegment[]): string {
  return segments.map((segment) => segment.type === "text" ? segment.text : "").join("");
}
