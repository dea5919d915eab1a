/**
 * The text of the file `hooks init` writes, and of the probe files it fires first: the cases in
 * plan order (so each keeps its position, and its session id), the head every scenario file of
 * init starts with (`$schema`, then the comments that say what to change), and a note for each
 * hook without a case of its own. Pure.
 */
import type { Registration } from "../../hooks/registration.ts";
import type { CompatProfile } from "../../profile/compat_profile.ts";
import { EVENT_PROBE } from "./observed_event.ts";
import { SESSION_PROBE } from "./observed_session.ts";
import type { eventExpect, sessionExpect } from "./scaffold_expect.ts";
import type { PlannedCase, SessionPlan } from "./scaffold_plan.ts";
import {
  array,
  type JsoncEntry,
  type JsoncItem,
  type JsoncNode,
  object,
  renderJsonc,
  value,
  wrap,
} from "./scaffold_render.ts";
import { SCENARIO_SCHEMA_URL } from "../scenarios/scenario_json_schema.ts";

export type WrittenCase =
  | {
    readonly kind: "event";
    readonly planned: PlannedCase;
    readonly expect: ReturnType<typeof eventExpect>;
  }
  | {
    readonly kind: "session";
    readonly session: SessionPlan;
    readonly expect: ReturnType<typeof sessionExpect>;
  };

export function probeText(
  cases: readonly PlannedCase[],
  session: SessionPlan,
  profile: CompatProfile,
) {
  const items: JsoncItem[] = cases.map((planned, i) => ({
    node: eventCaseNode(`probe ${i + 1}`, planned, value(EVENT_PROBE)),
  }));
  items.push({ node: sessionCaseNode("probe session", session, value(SESSION_PROBE)) });
  return renderJsonc(object([...fileHead(profile), { key: "cases", node: array(items) }])) + "\n";
}

export function suiteText(
  cases: readonly WrittenCase[],
  notes: readonly string[],
  profile: CompatProfile,
  firing: readonly Registration[],
): string {
  const items: JsoncItem[] = cases.map((written) =>
    written.kind === "event"
      ? {
        comments: [wrap(written.planned.why)],
        node: eventCaseNode(
          caseName(written),
          written.planned,
          object(written.expect.entries),
          written.expect.comments,
        ),
      }
      : {
        comments: sessionComments(written.session),
        node: sessionCaseNode(
          caseName(written),
          written.session,
          object(written.expect.entries),
          written.expect.comments,
        ),
      }
  );
  const sources = [...new Set(firing.map((r) => r.source.file.replace(/^.*\/(\.claude\/)/, "$1")))];
  const head = fileHead(profile, [
    `Written by "llama-agent hooks init" from the hooks of ${
      sources.join(" and ")
    } that fire here.`,
    'Each "expect" is what the hooks do now. Change it to what they must do, add the cases that ' +
    'matter to you, then run "llama-agent hooks test". Texts are exact; where one depends on ' +
    'the machine or the branch, loosen it to {"matches": "<regex>"}. Run "llama-agent hooks ' +
    'test --explain" to see every hook of a case.',
  ]);
  const casesComments = notes.length === 0 ? [] : [
    "Hooks without a case of their own:",
    ...notes.map((n) => wrap(`- ${n}`).replaceAll("\n", "\n  ")),
  ];
  return renderJsonc(object([
    ...head,
    { key: "cases", node: array(uniqueNames(items)), comments: casesComments },
  ])) + "\n";
}

function fileHead(profile: CompatProfile, comments: readonly string[] = []): JsoncEntry[] {
  return [
    { key: "$schema", node: value(SCENARIO_SCHEMA_URL), comments: comments.map((c) => wrap(c)) },
    { key: "description", node: value("What the hooks of this project do, case by case") },
    ...(profile.id === "claude"
      ? [{
        key: "compat",
        node: value("claude"),
        comments: ["The hooks are written for Claude Code's tool names"],
      }]
      : []),
  ];
}

function eventCaseNode(
  name: string,
  planned: PlannedCase,
  expect: JsoncNode,
  expectComments: readonly string[] = [],
) {
  return object([
    { key: "name", node: value(name) },
    { key: "event", node: value(planned.event) },
    ...(planned.isolate
      ? [{
        key: "isolate",
        node: value(true),
        comments: ["A hook here may write into the project: the case runs in a copy of it"],
      }]
      : []),
    { key: "input", node: value(planned.input) },
    {
      key: "expect",
      node: expect,
      comments: expectComments.map((c) => wrap(c)),
    },
  ]);
}

function sessionComments(session: SessionPlan): string[] {
  const shell = session.tool.capability === "shell";
  return [
    wrap(
      `A whole session: one prompt, the model calls ${session.tool.name} once, every hook of the ` +
        "chain fires on the way. It runs in a copy of the project with a HOME of its own" +
        (shell
          ? '; the command is answered from "shell", not run (add "execute": true to run it in the copy)'
          : "") +
        (session.evaluatorTurns > 0
          ? '. The evaluator answers every prompt and agent hook {"ok": true}'
          : ""),
    ),
  ];
}

function sessionCaseNode(
  name: string,
  session: SessionPlan,
  expect: JsoncNode,
  expectComments: readonly string[] = [],
) {
  const shell = session.tool.capability === "shell";
  const script = object([
    {
      key: "model",
      node: value({
        turns: [{ toolCalls: [{ name: session.tool.name, input: session.input }] }, {
          text: "Done.",
        }],
      }),
    },
    ...(session.evaluatorTurns > 0
      ? [{
        key: "evaluator",
        node: value({
          turns: Array.from({ length: session.evaluatorTurns }, () => ({ text: '{"ok": true}' })),
        }),
      }]
      : []),
    { key: "prompts", node: value([promptFor(session)]) },
    { key: "client", node: value({ permissions: "allow_once" }) },
    ...(shell ? [{ key: "shell", node: value([{ output: "README.md\n", exitCode: 0 }]) }] : []),
  ]);
  return object([
    { key: "name", node: value(name) },
    { key: "session", node: script },
    {
      key: "expect",
      node: expect,
      comments: expectComments.map((c) => wrap(c)),
    },
  ]);
}

function promptFor(session: SessionPlan): string {
  return session.tool.capability === "shell"
    ? "List the files of this project"
    : `Use ${session.tool.name} once`;
}

export function caseName(written: WrittenCase): string {
  return written.kind === "event"
    ? `${written.planned.subject}: ${written.expect.outcome}`
    : `session: ${written.expect.outcome}`;
}

/** Case names must be unique in a file: a repeated one gets ` (2)`, ` (3)`, ... */
function uniqueNames(items: JsoncItem[]): JsoncItem[] {
  const count = new Map<string, number>();
  return items.map((item) => {
    if (item.node.kind !== "object") return item;
    const entries = item.node.entries;
    const nameEntry = entries[0];
    if (nameEntry?.key !== "name" || nameEntry.node.kind !== "value") return item;
    const name = String(nameEntry.node.value);
    const n = (count.get(name) ?? 0) + 1;
    count.set(name, n);
    if (n === 1) return item;
    return {
      ...item,
      node: object([{ key: "name", node: value(`${name} (${n})`) }, ...entries.slice(1)]),
    };
  });
}
