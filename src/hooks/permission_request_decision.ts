/**
 * What PermissionRequest hooks answer when the agent is about to ask the client for permission
 * (the `claude` profile; Claude Code's contract): allow (maybe with a rewritten input), deny (with
 * what the model is told, maybe stopping the turn), or nothing, and the client is asked as
 * usual. Pure: outcomes in, one answer out.
 *
 * A hook answers with `hookSpecificOutput.decision` (`{behavior, updatedInput?, message?,
 * interrupt?}`), with the source document's top-level `{"decision": "approve" | "deny",
 * "reason"}`, or with exit 2 (deny, stderr the message). Several hooks: `continue:false` beats
 * everything, then deny beats allow, as on PreToolUse.
 */
import type { HookOutcome } from "./hook_outcome.ts";
import type { HookOutput } from "./hook_output.ts";

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
    return { behavior: "allow", updatedInput: specific?.updatedInput ?? null };
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
  let updatedInput: Extract<PermissionRequestAnswer, { kind: "allow" }>["updatedInput"] = null;
  for (const outcome of inChainOrder) {
    const by = outcome.registration.id;
    switch (outcome.kind) {
      case "error":
        continue;
      case "block":
        // Exit 2 (its stderr), a prompt hook's `ok:false` (its reason), a fail-closed failure.
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
  if (allows.length > 0) return { kind: "allow", by: allows, updatedInput };
  return ASK;
}
