/**
 * What PermissionRequest hooks answer when the agent is about to ask the client for permission
 * (the `claude` profile; Claude Code's contract): allow (maybe with a rewritten input), deny (with
 * what the model is told, maybe stopping the turn), or nothing, and the client is asked as
 * usual. Pure: outcomes in, one answer out.
 *
 * A hook answers with `hookSpecificOutput.decision` (`{behavior, updatedInput?,
 * updatedPermissions?, message?, interrupt?}`) or with the source document's top-level
 * `{"decision": "approve" | "deny", "reason"}`. Exit 2 answers nothing here, as in Claude Code,
 * which reads this event's answer from JSON only: it is an error the user is told of
 * (hook_outcome.ts). Several hooks: `continue:false` beats everything, then deny beats allow, as
 * on PreToolUse.
 */
import { z } from "zod";
import type { HookOutcome } from "./hook_outcome.ts";
import type { HookOutput } from "./hook_output.ts";
import { isRecord } from "./json_value_at.ts";

/**
 * What the model reads for a deny that gave no message. Claude Code's default, as its published
 * source has it (not observed by running it).
 */
export const PERMISSION_REQUEST_DENIED = "Permission denied by PermissionRequest hook";

/** One hook's answer. */
export type PermissionRequestSay =
  | {
    readonly behavior: "allow";
    readonly updatedInput: Readonly<Record<string, unknown>> | null;
    /** As the hook sent it (undefined when it sent none): read by sessionPermissionUpdates. */
    readonly updatedPermissions: unknown;
  }
  | { readonly behavior: "deny"; readonly message: string | null; readonly interrupt: boolean };

/**
 * One hook's JSON answer, or null when it says nothing about the permission. When its
 * `hookSpecificOutput.decision` and its top-level `decision` disagree, deny wins, the rule that
 * combines several hooks. A top-level `"block"` is a deny too.
 */
export function permissionRequestSay(output: HookOutput): PermissionRequestSay | null {
  const specific = output.hookSpecificOutput?.hookEventName === "PermissionRequest"
    ? output.hookSpecificOutput.decision
    : undefined;
  const topLevel = output.decision;
  if (specific?.behavior === "deny" || topLevel === "deny" || topLevel === "block") {
    const message = (specific?.behavior === "deny" ? specific.message?.trim() : undefined) ||
      output.reason?.trim() || null;
    return { behavior: "deny", message, interrupt: specific?.interrupt === true };
  }
  if (specific?.behavior === "allow" || topLevel === "approve") {
    return {
      behavior: "allow",
      updatedInput: specific?.updatedInput ?? null,
      updatedPermissions: specific?.behavior === "allow" ? specific.updatedPermissions : undefined,
    };
  }
  return null;
}

export type PermissionRequestAnswer =
  /** No hook decided (or every one failed): ask the client. */
  | { readonly kind: "ask" }
  | {
    readonly kind: "allow";
    /** The registrations that allowed, in chain order. */
    readonly by: readonly string[];
    /** The last rewrite in chain order, as on PreToolUse. */
    readonly updatedInput: {
      readonly by: string;
      readonly input: Readonly<Record<string, unknown>>;
    } | null;
    /** What the allowing hooks' `updatedPermissions` add to the session; absent if none sent. */
    readonly permissionUpdates?: SessionPermissionUpdates;
  }
  | {
    readonly kind: "deny";
    readonly by: readonly string[];
    /** For the model: every deny's message, one per line, in chain order. */
    readonly message: string;
    /** A deny asked to stop the turn as well. */
    readonly interrupt: boolean;
  }
  /** `continue:false`: the first in chain order. */
  | { readonly kind: "stop"; readonly by: string; readonly stopReason: string | null };

const ASK: PermissionRequestAnswer = { kind: "ask" };

export function answerPermissionRequest(
  outcomes: readonly HookOutcome[],
): PermissionRequestAnswer {
  const inChainOrder = outcomes.toSorted((a, b) => a.registration.order - b.registration.order);
  const denies: { by: string; message: string | null; interrupt: boolean }[] = [];
  const allows: string[] = [];
  const rules: SessionPermissionRule[] = [];
  const ignored: string[] = [];
  let updatedInput: Extract<PermissionRequestAnswer, { kind: "allow" }>["updatedInput"] = null;
  for (const outcome of inChainOrder) {
    const by = outcome.registration.id;
    switch (outcome.kind) {
      case "error":
        continue;
      case "block":
        // A prompt hook's `ok:false` (its reason), a fail-closed failure (exit 2 is an error here).
        denies.push({ by, message: outcome.detail, interrupt: false });
        continue;
      case "success": {
        if (outcome.output === null) continue;
        if (outcome.output.continue === false) {
          return { kind: "stop", by, stopReason: outcome.output.stopReason || null };
        }
        const say = permissionRequestSay(outcome.output);
        if (say?.behavior === "deny") denies.push({ by, ...say });
        if (say?.behavior === "allow") {
          allows.push(by);
          if (say.updatedInput !== null) updatedInput = { by, input: say.updatedInput };
          if (say.updatedPermissions !== undefined) {
            const updates = sessionPermissionUpdates(say.updatedPermissions);
            rules.push(...updates.rules);
            ignored.push(...updates.ignored.map((why) => `PermissionRequest hook "${by}": ${why}`));
          }
        }
        continue;
      }
      default:
        return outcome satisfies never;
    }
  }
  if (denies.length > 0) {
    const messages = denies.flatMap((deny) => deny.message === null ? [] : [deny.message]);
    return {
      kind: "deny",
      by: denies.map((deny) => deny.by),
      message: messages.length > 0 ? messages.join("\n") : PERMISSION_REQUEST_DENIED,
      interrupt: denies.some((deny) => deny.interrupt),
    };
  }
  if (allows.length > 0) {
    const sent = rules.length > 0 || ignored.length > 0;
    return {
      kind: "allow",
      by: allows,
      updatedInput,
      ...(sent ? { permissionUpdates: { rules, ignored } } : {}),
    };
  }
  return ASK;
}

/**
 * One rule an allowing hook adds to the session (Claude Code's `addRules`), kept as the user's
 * "always allow" / "always reject" answer for `toolName` would be.
 */
export interface SessionPermissionRule {
  readonly toolName: string;
  readonly behavior: "allow" | "deny";
}

export interface SessionPermissionUpdates {
  /** In the order sent. */
  readonly rules: readonly SessionPermissionRule[];
  /** One line per entry or rule left out, saying why: for the log, never an error. */
  readonly ignored: readonly string[];
}

const RuleValue = z.looseObject({
  toolName: z.string({ error: "must be a string" }).min(1, { error: "must not be empty" }),
  ruleContent: z.string({ error: "must be a string" }).optional(),
}, { error: "must be an object" });

// `destination` is not read: llama-agent writes no settings file, so a rule holds for this
// session only, wherever the hook asked for it to be kept.
const AddRules = z.looseObject({
  type: z.literal("addRules", { error: 'must be "addRules"' }),
  rules: z.array(RuleValue, { error: "must be an array of rules" }),
  behavior: z.enum(["allow", "deny", "ask"], { error: 'must be "allow", "deny" or "ask"' }),
});

/**
 * What a hook's `decision.updatedPermissions` adds to the session. Only `addRules` whose rule
 * names a whole tool can be kept (the session remembers answers per tool name); anything else —
 * a narrower `ruleContent`, an `ask` rule, another update type, a malformed entry — is left out
 * with a line saying why, and the rest still applies.
 */
export function sessionPermissionUpdates(value: unknown): SessionPermissionUpdates {
  if (!Array.isArray(value)) {
    return { rules: [], ignored: ['"updatedPermissions" ignored: it must be an array of updates'] };
  }
  const rules: SessionPermissionRule[] = [];
  const ignored: string[] = [];
  value.forEach((entry: unknown, index) => {
    const where = `"updatedPermissions[${index}]"`;
    const type = isRecord(entry) ? entry.type : undefined;
    if (typeof type === "string" && type !== "addRules") {
      ignored.push(`${where} ignored: only "addRules" updates are kept here (got "${type}")`);
      return;
    }
    const parsed = AddRules.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.map(String).join(".") ?? "";
      const detail = path === "" ? "it must be an object" : `"${path}" ${issue?.message}`;
      ignored.push(`${where} ignored: ${detail}`);
      return;
    }
    const { behavior } = parsed.data;
    parsed.data.rules.forEach((rule, ruleIndex) => {
      const named = `"updatedPermissions[${index}].rules[${ruleIndex}]"`;
      if (behavior === "ask") {
        ignored.push(
          `${named} ignored: an "ask" rule cannot be kept; this session remembers only ` +
            "always-allow and always-reject answers",
        );
      } else if (rule.ruleContent !== undefined || /[()]/.test(rule.toolName)) {
        const shown = rule.ruleContent === undefined
          ? rule.toolName
          : `${rule.toolName}(${rule.ruleContent})`;
        ignored.push(
          `${named} ignored: "${shown}" is narrower than the whole tool; this session remembers ` +
            "answers for whole tools only",
        );
      } else rules.push({ toolName: rule.toolName, behavior });
    });
  });
  return { rules, ignored };
}
