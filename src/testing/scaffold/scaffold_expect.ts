/**
 * The `expect` of a scaffolded case from two firings of it: only what both firings agree on
 * (a value that differs depends on the temporary place, the time or the network), and nothing
 * an `http` hook decided (it depends on a server). Texts are exact when they are one short
 * line, else a regex anchored on their first line. Also the case's name, which says what the
 * hooks do now. Pure.
 */
import type { ExplainedFiring } from "../scenarios/case_result.ts";
import type { ObservedEvent } from "./observed_event.ts";
import type { ObservedSession } from "./observed_session.ts";
import type { JsoncEntry } from "./scaffold_render.ts";
import { value } from "./scaffold_render.ts";

/** Longest text kept exact; a longer one, or one of several lines, becomes a regex. */
const EXACT_CHARS = 160;
const REGEX_PREFIX_CHARS = 80;

export interface ScaffoldedExpect {
  readonly entries: readonly JsoncEntry[];
  /** Comment lines above `expect`: what each hook did. */
  readonly comments: readonly string[];
  /** What the hooks do, for the case's name: `denied by guard.sh`. */
  readonly outcome: string;
}

export interface HookNames {
  /** A hook reference (an id, or a label) → the label the suite uses for the hook. */
  label(ref: string): string;
  /** Hooks whose answers depend on something outside (http). */
  isVolatile(ref: string): boolean;
}

export function eventExpect(
  event: string,
  first: ObservedEvent,
  second: ObservedEvent,
  names: HookNames,
): ScaffoldedExpect {
  const entries: JsoncEntry[] = [];
  const differed: string[] = [];
  const decidedBy = first.explain?.decidedBy ?? {};
  const byVolatile = (key: string) => idsOf(decidedBy[key]).some((id) => names.isVolatile(id));
  const volatileRan = first.matched.some((id) => names.isVolatile(id));
  const keep = <T>(
    key: string,
    a: T,
    b: T,
    include: (v: T) => boolean,
    as = (v: T): unknown => v,
  ) => {
    if (!same(a, b)) differed.push(key);
    else if (include(a)) entries.push({ key, node: value(as(a)) });
  };
  keep("decision", first.decision, second.decision, () => !byVolatile("decision"));
  const present = (key: string) => (v: string | null) => v !== null && !byVolatile(key);
  const asText = (v: string | null) => textExpectation(v ?? "");
  keep("reason", first.reason, second.reason, present("decision"), asText);
  keep("context", first.context, second.context, present("context"), asText);
  keep(
    "systemMessage",
    first.systemMessage,
    second.systemMessage,
    present("systemMessage"),
    asText,
  );
  keep("stopReason", first.stopReason, second.stopReason, present("decision"), asText);
  keep(
    "updatedInput",
    first.updatedInput,
    second.updatedInput,
    (v) => v !== null && !byVolatile("updatedInput"),
  );
  keep("matched", first.matched, second.matched, () => true, (ids) => ids.map(names.label));
  keep("exitCodes", first.exitCodes, second.exitCodes, (codes) => codes.length > 0);
  keep("errors", first.errors, second.errors, () => !volatileRan);
  const comments = [
    ...ranComments(first.explain, names),
    ...(differed.length === 0 ? [] : [
      `Left out: ${differed.map((k) => `"${k}"`).join(", ")} differed between two firings`,
    ]),
  ];
  return { entries, comments, outcome: eventOutcome(event, first, names) };
}

/** `ran: guard.sh (exit 2), audit.sh (exit 0)`; nothing when no hook ran. */
function ranComments(explain: ExplainedFiring | undefined, names: HookNames): string[] {
  const ran = (explain?.registrations ?? []).filter((r) => r.matched);
  if (ran.length === 0) return [];
  const shown = ran.map((r) => {
    const result = r.result ?? {};
    const how = result["kind"] === "exited" ? `exit ${result["exitCode"]}` : String(result["kind"]);
    return `${names.label(r.id)} (${how})`;
  });
  return [`Ran: ${shown.join(", ")}`];
}

function eventOutcome(event: string, seen: ObservedEvent, names: HookNames): string {
  const decidedBy = seen.explain?.decidedBy ?? {};
  const who = (key: string) => idsOf(decidedBy[key]).map(names.label).join(" and ") || "a hook";
  switch (seen.decision) {
    case "deny":
      return `denied by ${who("decision")}`;
    case "block":
      return `blocked by ${who("decision")}`;
    case "ask":
      return `${who("decision")} asks the user`;
    case "allow":
      return `allowed by ${who("decision")}`;
    case "defer":
      return `deferred by ${who("decision")}`;
    case "stop":
      return `stopped by ${who("decision")}`;
  }
  const said = [
    ...(seen.updatedInput !== null ? [`${who("updatedInput")} rewrites the input`] : []),
    ...(seen.context !== null ? [`${who("context")} adds context`] : []),
    ...(seen.systemMessage !== null ? [`${who("systemMessage")} shows a message`] : []),
    ...(seen.errors > 0 ? [`${seen.errors} hook error(s)`] : []),
  ];
  if (said.length > 0) return said.join(", ");
  if (seen.matched.length === 0) return "no hook runs";
  const ran = seen.matched.map(names.label).join(" and ");
  if (event === "PreToolUse") {
    return `${ran} ${seen.matched.length > 1 ? "let" : "lets"} it through`;
  }
  return `${ran} ${seen.matched.length > 1 ? "run" : "runs"}, deciding nothing`;
}

/** The session case's `expect`: what both runs agree on. */
export function sessionExpect(
  first: ObservedSession,
  second: ObservedSession,
  /** The session's tool call is a shell command (answered by the scripted terminal). */
  shell: boolean,
): ScaffoldedExpect {
  const entries: JsoncEntry[] = [];
  const comments: string[] = [];
  // Notification hooks run beside the turn: where they land in the order is not stable.
  const ordered = !first.hooks.some((f) => f.event === "Notification");
  if (ordered && same(first.hooks, second.hooks)) {
    entries.push({
      key: "hooks",
      node: value(first.hooks.map((f) => ({
        event: f.event,
        ...(f.matcher === null ? {} : { matcher: f.matcher }),
        decision: f.decision,
      }))),
      comments: ["Every firing that ran a hook, in order, with what the hooks decided"],
    });
  } else {
    comments.push(
      ordered
        ? 'Left out: "hooks" differed between two runs'
        : 'Left out: "hooks" (Notification hooks run beside the turn, so their place in the order varies)',
    );
  }
  if (same(first.tools, second.tools)) {
    entries.push({
      key: "tools",
      node: value(first.tools.map((t) => ({ ...t, status: t.status ?? undefined }))),
    });
  }
  const lastStop = (s: ObservedSession) => s.stopReasons.at(-1) ?? null;
  if (same(lastStop(first), lastStop(second)) && lastStop(first) !== null) {
    entries.push({ key: "stopReason", node: value(lastStop(first)) });
  }
  if (same(first.notices, second.notices) && first.notices.length > 0) {
    entries.push({
      key: "notices",
      node: value(first.notices),
      comments: ["What the hooks showed the user"],
    });
  }
  return { entries, comments, outcome: sessionOutcome(first.tools[0], shell) };
}

function sessionOutcome(
  tool: ObservedSession["tools"][number] | undefined,
  shell: boolean,
): string {
  if (tool === undefined) return "the model makes no tool call";
  if (!tool.dispatched) return `${tool.name} is refused`;
  if (shell) return `${tool.name} is answered, not run`;
  return `${tool.name} runs in the copy${tool.status === "failed" ? " and fails" : ""}`;
}

/** Exact, or `{"matches": "^<first line>"}` for a long or multi-line text. */
export function textExpectation(text: string): string | { matches: string } {
  if (!text.includes("\n") && text.length <= EXACT_CHARS) return text;
  const lines = text.split("\n");
  const firstLine = lines[0] ?? "";
  if (firstLine !== "") {
    return { matches: `^${escapeRegExp(firstLine.slice(0, REGEX_PREFIX_CHARS))}` };
  }
  const line = lines.find((l) => l.trim() !== "") ?? "";
  return { matches: escapeRegExp(line.slice(0, REGEX_PREFIX_CHARS)) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function idsOf(by: string | readonly string[] | undefined): string[] {
  return by === undefined ? [] : typeof by === "string" ? [by] : [...new Set(by)];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
