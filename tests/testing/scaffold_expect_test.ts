/**
 * The `expect` `hooks init` writes from two firings: only what both agree on, texts exact when
 * short, a regex on the first line otherwise, nothing an http hook decided.
 */
import { assertEquals } from "../helpers/assert.ts";
import type { ObservedEvent } from "../../src/testing/scaffold/observed_event.ts";
import { eventExpect, textExpectation } from "../../src/testing/scaffold/scaffold_expect.ts";
import type { JsoncEntry } from "../../src/testing/scaffold/scaffold_render.ts";

const names = {
  label: (id: string) => `label-of-${id}`,
  isVolatile: (id: string) => id === "http",
};

const DENIED: ObservedEvent = {
  decision: "deny",
  reason: "[guard.sh]: BLOCKED",
  context: null,
  systemMessage: null,
  stopReason: null,
  updatedInput: null,
  matched: ["guard"],
  exitCodes: [2],
  errors: 0,
  explain: {
    event: "PreToolUse",
    matcherValue: "shell",
    registrations: [{
      id: "guard",
      summary: "guard.sh",
      source: "s:1",
      matched: true,
      why: "",
      result: { kind: "exited", exitCode: 2 },
    }],
    decidedBy: { decision: ["guard"] },
  },
};

const keys = (entries: readonly JsoncEntry[]) => entries.map((e) => e.key);
const valueOf = (entries: readonly JsoncEntry[], key: string) => {
  const node = entries.find((e) => e.key === key)?.node;
  return node?.kind === "value" ? node.value : undefined;
};

Deno.test("what both firings agree on is expected, hooks named by their labels", () => {
  const made = eventExpect("PreToolUse", DENIED, DENIED, names);
  assertEquals(keys(made.entries), ["decision", "reason", "matched", "exitCodes", "errors"]);
  assertEquals(valueOf(made.entries, "matched"), ["label-of-guard"]);
  assertEquals(made.outcome, "denied by label-of-guard");
  assertEquals(made.comments, ["Ran: label-of-guard (exit 2)"]);
});

Deno.test("a value the two firings disagree on is left out, and a comment says so", () => {
  const other = { ...DENIED, reason: "[guard.sh]: BLOCKED at 12:01" };
  const made = eventExpect("PreToolUse", DENIED, other, names);
  assertEquals(keys(made.entries), ["decision", "matched", "exitCodes", "errors"]);
  assertEquals(made.comments.at(-1), 'Left out: "reason" differed between two firings');
});

Deno.test("nothing an http hook decided is expected, nor the error count when one ran", () => {
  const byHttp: ObservedEvent = {
    ...DENIED,
    matched: ["http"],
    exitCodes: [],
    explain: { ...DENIED.explain!, decidedBy: { decision: ["http"] } },
  };
  const made = eventExpect("PreToolUse", byHttp, byHttp, names);
  assertEquals(keys(made.entries), ["matched"]);
});

Deno.test("a short one-line text is exact; a multi-line one is a regex on its first line", () => {
  assertEquals(textExpectation("Use pnpm"), "Use pnpm");
  assertEquals(textExpectation("Current branch: main (1.2)\nPending: x"), {
    matches: "^Current branch: main \\(1\\.2\\)",
  });
  assertEquals(textExpectation("\nsecond line"), { matches: "second line" });
});
