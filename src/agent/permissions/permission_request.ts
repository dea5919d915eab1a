/**
 * The question put to the client with `session/request_permission`, and what its answer means.
 * The four options carry their kind as their id, so an answer reads the same whatever the client
 * shows. Anything but a clear "allow" is a refusal: a cancelled prompt (`session/cancel` makes
 * pending prompts answer `cancelled`), an unknown option id, or an answer that does not parse.
 */
import type { PermissionOption, PermissionOptionKind } from "@agentclientprotocol/sdk";
import { z } from "zod";

export function permissionOptions(toolName: string): PermissionOption[] {
  const option = (kind: PermissionOptionKind, name: string): PermissionOption => ({
    optionId: kind,
    name,
    kind,
  });
  return [
    option("allow_once", "Allow once"),
    option("allow_always", `Always allow ${toolName}`),
    option("reject_once", "Reject"),
    option("reject_always", `Always reject ${toolName}`),
  ];
}

export interface PermissionAnswer {
  readonly decision: "allow" | "deny";
  /** The answer holds for this tool name for the rest of the session. */
  readonly always: boolean;
  /** The client cancelled the prompt rather than choosing. */
  readonly cancelled: boolean;
}

const RequestPermissionAnswer = z.looseObject({
  outcome: z.discriminatedUnion("outcome", [
    z.looseObject({ outcome: z.literal("cancelled") }),
    z.looseObject({ outcome: z.literal("selected"), optionId: z.string() }),
  ]),
});

const REFUSED: PermissionAnswer = { decision: "deny", always: false, cancelled: false };

/** Reads the client's answer to `session/request_permission`. */
export function permissionAnswer(response: unknown): PermissionAnswer {
  const parsed = RequestPermissionAnswer.safeParse(response);
  if (!parsed.success) return REFUSED;
  const { outcome } = parsed.data;
  if (outcome.outcome === "cancelled") return { ...REFUSED, cancelled: true };
  switch (outcome.optionId) {
    case "allow_once":
      return { decision: "allow", always: false, cancelled: false };
    case "allow_always":
      return { decision: "allow", always: true, cancelled: false };
    case "reject_always":
      return { decision: "deny", always: true, cancelled: false };
    default:
      // reject_once, and any id we did not offer.
      return REFUSED;
  }
}

export interface SessionPermissionMemory {
  readonly alwaysAllowed: Set<string>;
  readonly alwaysRejected: Set<string>;
}

/** Records an "always" answer for the rest of the session; the latest answer wins. */
export function rememberAnswer(
  memory: SessionPermissionMemory,
  toolName: string,
  answer: PermissionAnswer,
): void {
  if (!answer.always) return;
  const [add, remove] = answer.decision === "allow"
    ? [memory.alwaysAllowed, memory.alwaysRejected]
    : [memory.alwaysRejected, memory.alwaysAllowed];
  add.add(toolName);
  remove.delete(toolName);
}
