/**
 * Many hook outcomes of one firing → one decision (spec §8, with §4/§5 saying what each event
 * reads). Deterministic: outcomes are read in chain order whatever order they finished in, and
 * every piece of the decision names the registration that supplied it, so `hooks test --explain`
 * can say which hook decided what.
 */
import { EVENTS_FIRED_SOMEWHERE, type FiredEventName, HOOK_EVENTS } from "./event_table.ts";
import { DEFAULT_BLOCK_REASON } from "./hook_messages.ts";
import { type BlockCause, commandOf, type ErrorCause, type HookOutcome } from "./hook_outcome.ts";
import type {
  HookOutput,
  HookSpecificOutput,
  PostToolUseOutput,
  PreToolUseOutput,
} from "./hook_output.ts";
import { PERMISSION_REQUEST_DENIED, permissionRequestSay } from "./permission_request_decision.ts";
import type { CompatProfile } from "../profile/compat_profile.ts";

/** Something one hook said, and the id of the registration that said it. */
export interface Said {
  readonly by: string;
  readonly text: string;
}

/** Part of a hook's answer that has no effect on this event, with the hook's `<cmd>`. */
export interface Unread extends Said {
  readonly command: string;
}

/** A PreToolUse `allow`, `ask` or `defer`, with its `permissionDecisionReason` when given. */
export interface Vote {
  readonly by: string;
  readonly reason: string | null;
}

/** Where a block came from: the outcome's cause, or a field of the JSON output. */
export type BlockSource =
  | BlockCause
  | "decision"
  | "permission_decision"
  /** Stop's `hookSpecificOutput.reason`. */
  | "stop_reason";

export interface BlockEntry {
  readonly by: string;
  /** The hook's `<cmd>`, which PostToolUse messages quote. */
  readonly command: string;
  readonly source: BlockSource;
  /** As messages quote it (`[<cmd>]: <stderr>` for exit 2). */
  readonly reason: string;
  /** The hook's own words (raw stderr for exit 2). */
  readonly detail: string;
}

export type Verdict =
  | { readonly kind: "none" }
  /**
   * PreToolUse: skip the permission prompt (never overrides a policy deny). PermissionRequest:
   * answer the prompt with allow.
   */
  | { readonly kind: "allow"; readonly votes: readonly Vote[] }
  /** PreToolUse only: ask the client even if the policy would approve. */
  | { readonly kind: "ask"; readonly votes: readonly Vote[] }
  /**
   * PreToolUse only: hold the call. It is not run and the turn ends at once, with no Post or
   * Stop hook (hooks.md §12.4, Claude Code's `tool_deferred`).
   */
  | { readonly kind: "defer"; readonly votes: readonly Vote[] }
  /**
   * PreToolUse or PermissionRequest deny, UserPromptSubmit block, Stop "don't stop", Post* and
   * PostToolBatch feedback to the model.
   */
  | { readonly kind: "block"; readonly reason: string; readonly blocks: readonly BlockEntry[] }
  /** `continue:false`: beats everything; the first one in chain order is kept. */
  | { readonly kind: "stop"; readonly by: string; readonly stopReason: string | null };

/** A hook that gave no usable answer: shown to the user, never to the model. */
export interface HookErrorNote {
  readonly by: string;
  readonly command: string;
  readonly cause: ErrorCause;
  readonly detail: string;
  readonly timedOut: boolean;
}

export interface HookDecision {
  readonly event: FiredEventName;
  readonly verdict: Verdict;
  /**
   * PreToolUse: the last rewrite in chain order; it applies on allow and on no decision.
   * PermissionRequest: the last allow's rewrite.
   */
  readonly updatedInput: {
    readonly by: string;
    readonly input: Readonly<Record<string, unknown>>;
  } | null;
  /**
   * PostToolUse: the last `updatedToolOutput` in chain order, as the hook gave it (`value`) and
   * as text (a string as it is, any other JSON value as its JSON text). The model reads it in
   * place of the tool's result; a value of the tool's own `tool_response` shape is told as the
   * tool tells its own output (ToolKit.rewrittenOutput), `text` otherwise.
   */
  readonly updatedToolOutput: {
    readonly by: string;
    readonly value: unknown;
    readonly text: string;
  } | null;
  /** `additionalContext` (top-level, then `hookSpecificOutput`), chain order; kept on block too. */
  readonly contexts: readonly Said[];
  /**
   * Plain stdout on exit 0, chain order, where the event reads it: the model's context on
   * SessionStart and UserPromptSubmit, the summary's instructions on PreCompact, the user's
   * notice on PostCompact.
   */
  readonly texts: readonly Said[];
  /** `systemMessage`s, for the user. */
  readonly systemMessages: readonly Said[];
  readonly errors: readonly HookErrorNote[];
  /** What hooks said that has no effect on this event, so `--explain` can say so. */
  readonly ignored: readonly Said[];
  /**
   * The part of `ignored` that reads as an answer (a JSON field, a block), which the user is
   * told of (hook_notices.ts), so an answer that does nothing is never silent. Plain stdout
   * where the event reads none is usually a log line, and only `--explain` names it.
   */
  readonly unread: readonly Unread[];
}

interface EventReads {
  readonly context: boolean;
  readonly plainText: boolean;
  readonly stop: boolean;
}

// Blocking is the event table's `blockable`; these are the rest of what §4 lets an event read.
const READS: Record<FiredEventName, EventReads> = {
  SessionStart: { context: true, plainText: true, stop: true },
  UserPromptSubmit: { context: true, plainText: true, stop: true },
  PreToolUse: { context: true, plainText: false, stop: true },
  PostToolUse: { context: true, plainText: false, stop: true },
  PostToolUseFailure: { context: true, plainText: false, stop: true },
  // Observational only: nothing but `systemMessage` is read.
  Notification: { context: false, plainText: false, stop: false },
  // Context alone continues the turn when Stop hooks continue it (hooks.md §12.2).
  Stop: { context: true, plainText: false, stop: true },
  // Its answer is `hookSpecificOutput.decision` (permission_request_decision.ts).
  PermissionRequest: { context: false, plainText: false, stop: true },
  // The session is over: nothing a hook says has an effect.
  SessionEnd: { context: false, plainText: false, stop: false },
  PostToolBatch: { context: true, plainText: false, stop: true },
  // Plain stdout is added to the summary's instructions; a stop keeps the conversation whole.
  PreCompact: { context: false, plainText: true, stop: true },
  // The compaction is done: plain stdout is shown to the user, nothing else has an effect.
  PostCompact: { context: false, plainText: true, stop: false },
};

const NONE: Verdict = { kind: "none" };

/** What of a hook's JSON the session's profile reads (compat_profile.ts). */
export type OutputRules = Pick<CompatProfile, "readsTopLevelContext">;

/** The source document's rules, which the llama profile follows. */
const DOCUMENT_RULES: OutputRules = { readsTopLevelContext: true };

export function combineOutcomes(
  event: FiredEventName,
  outcomes: readonly HookOutcome[],
  rules: OutputRules = DOCUMENT_RULES,
): HookDecision {
  const c = new Collector(event, rules);
  const inChainOrder = outcomes.toSorted((a, b) => a.registration.order - b.registration.order);
  for (const outcome of inChainOrder) c.read(outcome);
  return c.decision();
}

/** All `additionalContext` strings joined with "\n" in chain order, or null when none. */
export function joinedContext(decision: HookDecision): string | null {
  return decision.contexts.length === 0 ? null : decision.contexts.map((c) => c.text).join("\n");
}

class Collector {
  readonly #event: FiredEventName;
  readonly #reads: EventReads;
  readonly #blockable: boolean;
  #stop: Extract<Verdict, { kind: "stop" }> | null = null;
  readonly #blocks: BlockEntry[] = [];
  readonly #defers: Vote[] = [];
  readonly #asks: Vote[] = [];
  readonly #allows: Vote[] = [];
  #updatedInput: HookDecision["updatedInput"] = null;
  #updatedToolOutput: HookDecision["updatedToolOutput"] = null;
  readonly #contexts: Said[] = [];
  readonly #texts: Said[] = [];
  readonly #systemMessages: Said[] = [];
  readonly #errors: HookErrorNote[] = [];
  readonly #ignored: Said[] = [];
  readonly #unread: Unread[] = [];
  /** Each registration's `<cmd>`, for the notices of what it said that was ignored. */
  readonly #commands = new Map<string, string>();

  readonly #rules: OutputRules;

  constructor(event: FiredEventName, rules: OutputRules) {
    this.#event = event;
    this.#rules = rules;
    this.#reads = READS[event];
    this.#blockable = HOOK_EVENTS[event].blockable;
  }

  read(outcome: HookOutcome): void {
    const by = outcome.registration.id;
    this.#commands.set(by, commandOf(outcome.registration));
    switch (outcome.kind) {
      case "error":
        this.#errors.push({
          by,
          command: commandOf(outcome.registration),
          cause: outcome.cause,
          detail: outcome.detail,
          timedOut: outcome.timedOut,
        });
        return;
      case "block":
        this.#block(
          by,
          commandOf(outcome.registration),
          outcome.cause,
          outcome.reason,
          outcome.detail,
        );
        return;
      case "success":
        if (outcome.text !== null) this.#plainText(by, outcome.text);
        if (outcome.output !== null) {
          this.#output(by, commandOf(outcome.registration), outcome.output);
        }
        return;
      default:
        return outcome satisfies never;
    }
  }

  decision(): HookDecision {
    const verdict = this.#verdict();
    // A deferred call ends the turn before the model reads anything (hooks.md §12.4).
    if (verdict.kind === "defer") {
      for (const said of this.#contexts.splice(0)) {
        this.#ignore(said.by, `"additionalContext" has no effect on a deferred call: ${said.text}`);
      }
    }
    return {
      event: this.#event,
      verdict,
      updatedInput: this.#updatedInput,
      updatedToolOutput: this.#updatedToolOutput,
      contexts: this.#contexts,
      texts: this.#texts,
      systemMessages: this.#systemMessages,
      errors: this.#errors,
      ignored: this.#ignored,
      unread: this.#unread,
    };
  }

  #verdict(): Verdict {
    if (this.#stop !== null) return this.#stop;
    if (this.#blocks.length > 0) {
      const reason = this.#blocks.map((b) => b.reason).join("\n");
      return { kind: "block", reason, blocks: this.#blocks };
    }
    // deny > defer > ask > allow, Claude Code's documented order.
    if (this.#defers.length > 0) return { kind: "defer", votes: this.#defers };
    if (this.#asks.length > 0) return { kind: "ask", votes: this.#asks };
    if (this.#allows.length > 0) return { kind: "allow", votes: this.#allows };
    return NONE;
  }

  #block(by: string, command: string, source: BlockSource, reason: string, detail: string): void {
    if (this.#blockable) {
      this.#blocks.push({ by, command, source, reason, detail });
    } else {
      this.#ignore(by, `A block has no effect on ${this.#event}: ${reason}`);
    }
  }

  #plainText(by: string, text: string): void {
    if (this.#reads.plainText) {
      this.#texts.push({ by, text });
    } else {
      // The usual cause: a JSON answer followed by a log line, which makes it plain text.
      this.#ignore(
        by,
        `Stdout is not one JSON object, and plain text has no effect on ${this.#event}`,
        false,
      );
    }
  }

  #output(by: string, command: string, output: HookOutput): void {
    if (output.systemMessage) this.#systemMessages.push({ by, text: output.systemMessage });
    if (output.continue === false) {
      if (!this.#reads.stop) {
        this.#ignore(by, `"continue": false has no effect on ${this.#event}`);
      } else if (this.#stop === null) {
        this.#stop = { kind: "stop", by, stopReason: output.stopReason || null };
      }
    }
    if (this.#rules.readsTopLevelContext) this.#context(by, output.additionalContext);
    else if (output.additionalContext) {
      this.#ignore(
        by,
        `A top-level "additionalContext" has no effect: put it in "hookSpecificOutput", with ` +
          `"hookEventName": "${this.#event}"`,
      );
    }
    const specific = output.hookSpecificOutput;
    this.#context(by, specificContext(specific));
    this.#unreadFields(by, output);
    if (this.#event === "PermissionRequest") {
      this.#permissionRequest(by, command, output);
      return;
    }
    if (this.#event === "PreToolUse") {
      this.#permission(
        by,
        command,
        output,
        specific?.hookEventName === "PreToolUse" ? specific : {},
      );
      return;
    }
    if (specific?.hookEventName === "PostToolUse") this.#toolOutput(by, specific);
    else if (specific !== undefined && "updatedToolOutput" in specific) {
      // Claude Code reads it on PostToolUse only: a failed call's error stays what the model reads.
      this.#ignore(by, `"updatedToolOutput" has no effect on ${this.#event}`);
    }
    if ("updatedToolOutput" in output) {
      // A rewrite meant to hide a secret must not fail silently for being one level too high.
      this.#ignore(
        by,
        `A top-level "updatedToolOutput" has no effect: put it in "hookSpecificOutput"`,
      );
    }
    if (output.decision === "approve") {
      this.#ignore(by, `"decision": "approve" has no effect on ${this.#event}`);
    }
    const stopReason = specific?.hookEventName === "Stop" ? specific.reason?.trim() : undefined;
    if (output.decision === "block") {
      const reason = output.reason?.trim() || stopReason || DEFAULT_BLOCK_REASON;
      this.#block(by, command, "decision", reason, reason);
    } else if (stopReason) {
      this.#block(by, command, "stop_reason", stopReason, stopReason);
    }
  }

  #context(by: string, context: string | undefined): void {
    if (!context) return;
    if (this.#reads.context) {
      this.#contexts.push({ by, text: context });
    } else {
      this.#ignore(by, `"additionalContext" has no effect on ${this.#event}`);
    }
  }

  /**
   * One PreToolUse hook's say. When its `permissionDecision` and deprecated `decision` disagree,
   * the stronger wins (deny > defer > ask > allow), the same rule that combines several hooks.
   */
  #permission(
    by: string,
    command: string,
    output: HookOutput,
    specific: Partial<PreToolUseOutput>,
  ): void {
    if (specific.updatedInput !== undefined) {
      this.#updatedInput = { by, input: specific.updatedInput };
    }
    const explained = specific.permissionDecisionReason?.trim() || output.reason?.trim() || null;
    if (specific.permissionDecision === "deny" || output.decision === "block") {
      const source = specific.permissionDecision === "deny" ? "permission_decision" : "decision";
      const reason = explained ?? DEFAULT_BLOCK_REASON;
      this.#block(by, command, source, reason, reason);
    } else if (specific.permissionDecision === "defer") {
      this.#defers.push({ by, reason: explained });
    } else if (specific.permissionDecision === "ask") {
      this.#asks.push({ by, reason: explained });
    } else if (specific.permissionDecision === "allow" || output.decision === "approve") {
      this.#allows.push({ by, reason: explained });
    }
  }

  /** The last hook in chain order that rewrites the result decides what the model reads. */
  #toolOutput(by: string, specific: PostToolUseOutput): void {
    if ("updatedMCPToolOutput" in specific) {
      this.#ignore(by, `"updatedMCPToolOutput" is not read here: use "updatedToolOutput"`);
    }
    const value = specific.updatedToolOutput;
    if (value === undefined || value === null) return;
    this.#updatedToolOutput = {
      by,
      value,
      text: typeof value === "string" ? value : JSON.stringify(value),
    };
  }

  /** A PermissionRequest deny is a block, an allow a vote (permission_request_decision.ts). */
  #permissionRequest(by: string, command: string, output: HookOutput): void {
    const say = permissionRequestSay(output);
    if (say?.behavior === "deny") {
      const reason = say.message ?? PERMISSION_REQUEST_DENIED;
      this.#block(by, command, "decision", reason, reason);
    } else if (say?.behavior === "allow") {
      if (say.updatedInput !== null) this.#updatedInput = { by, input: say.updatedInput };
      this.#allows.push({ by, reason: output.reason?.trim() || null });
    }
  }

  /**
   * Fields the event never reads: a `hookSpecificOutput` field of another event (or a misspelt
   * one), and a field of `hookSpecificOutput` written at the top level, where neither Claude
   * Code nor llama-agent looks for it. Other unknown top-level keys are a script's own data
   * (`{"metrics": …}`) and pass quietly, as in Claude Code.
   */
  #unreadFields(by: string, output: HookOutput): void {
    const specific = output.hookSpecificOutput;
    if (specific !== undefined) {
      const reads = HOOK_EVENTS[this.#event].specificOutput;
      for (const key of Object.keys(specific)) {
        if (key === "hookEventName" || reads.includes(key) || SPECIFIC_HANDLED.has(key)) continue;
        const owners = SPECIFIC_FIELDS.get(key);
        this.#ignore(
          by,
          `"hookSpecificOutput.${key}" has no effect on ${this.#event}` +
            (owners ? `: it is read on ${owners} only` : ""),
        );
      }
    }
    for (const key of Object.keys(output)) {
      if (!MISPLACED_AT_TOP.has(key)) continue;
      this.#ignore(
        by,
        `A top-level "${key}" has no effect: put it in "hookSpecificOutput"` +
          (key === "hookEventName" ? "" : `, with "hookEventName": "${this.#event}"`),
      );
    }
  }

  #ignore(by: string, text: string, notice = true): void {
    this.#ignored.push({ by, text });
    if (notice) this.#unread.push({ by, text, command: this.#commands.get(by) ?? by });
  }
}

/** `hookSpecificOutput` fields whose misuse `#output` already reports in its own words. */
const SPECIFIC_HANDLED = new Set(["updatedToolOutput", "updatedMCPToolOutput"]);

/** Every event-specific field, with the events that read it (`"PreToolUse or Stop"`). */
const SPECIFIC_FIELDS: ReadonlyMap<string, string> = (() => {
  const owners = new Map<string, string[]>();
  for (const event of EVENTS_FIRED_SOMEWHERE) {
    for (const field of HOOK_EVENTS[event].specificOutput) {
      owners.set(field, [...(owners.get(field) ?? []), event]);
    }
  }
  return new Map([...owners].map(([field, events]) => [field, orList(events)]));
})();

/**
 * Top-level keys that belong in `hookSpecificOutput` and mean nothing where they are (the top
 * level's own `decision`, `reason` and `additionalContext` are read there).
 */
const MISPLACED_AT_TOP = new Set(
  ["hookEventName", ...SPECIFIC_FIELDS.keys()].filter((key) =>
    !["decision", "reason", "additionalContext", "updatedToolOutput"].includes(key)
  ),
);

function orList(items: readonly string[]): string {
  return items.length <= 2
    ? items.join(" or ")
    : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** `hookSpecificOutput.additionalContext`, on the events whose output carries one. */
function specificContext(specific: HookSpecificOutput | undefined): string | undefined {
  if (specific === undefined) return undefined;
  switch (specific.hookEventName) {
    case "PermissionRequest":
    case "SessionEnd":
      return undefined;
    default:
      return specific.additionalContext;
  }
}
