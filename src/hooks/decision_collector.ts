/**
 * How one firing's outcomes are read into its decision (decision.ts): what each event reads of
 * a hook's answer (§4), which answer wins (§8), and what a hook said that has no effect, so that
 * `--explain` and the notices can say so.
 */
import { EVENTS_FIRED_SOMEWHERE, type FiredEventName, HOOK_EVENTS } from "./event_table.ts";
import { DEFAULT_BLOCK_REASON } from "./hook_messages.ts";
import { commandOf, type HookOutcome } from "./hook_outcome.ts";
import type {
  HookOutput,
  HookSpecificOutput,
  PostToolUseOutput,
  PreToolUseOutput,
} from "./hook_output.ts";
import { PERMISSION_REQUEST_DENIED, permissionRequestSay } from "./permission_request_decision.ts";
import type {
  BlockEntry,
  BlockSource,
  HookDecision,
  HookErrorNote,
  OutputRules,
  Said,
  Unread,
  Verdict,
  Vote,
} from "./decision.ts";

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

/** Reads one firing's outcomes, one at a time in chain order, into one decision. */
export class DecisionCollector {
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
