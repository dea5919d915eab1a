import { assertEquals } from "../helpers/assert.ts";
import {
  decisionName,
  FailureList,
  jsonEqual,
  matchText,
  pointerOf,
  refersTo,
  sameDecision,
  subsetMatch,
} from "../../src/testing/runner/expectation_match.ts";
import { checkSessionExpectations } from "../../src/testing/runner/session_expectations.ts";
import { commandRegistration, promptRegistration } from "../hooks/registration_fixture.ts";

Deno.test("matchText: exact, contained, regex, absent and invalid", () => {
  assertEquals(matchText("a b", "a b"), { ok: true, matched: true });
  assertEquals(matchText("a", "a b"), { ok: true, matched: false });
  assertEquals(matchText("a", "a b", "contains"), { ok: true, matched: true });
  assertEquals(matchText({ matches: "b$" }, "a b"), { ok: true, matched: true });
  assertEquals(matchText({ matches: "^b" }, "a b"), { ok: true, matched: false });
  assertEquals(matchText("", null), { ok: true, matched: false });
  assertEquals(matchText({ matches: ".*" }, null), { ok: true, matched: false });
  const bad = matchText({ matches: "(" }, "x");
  assertEquals(bad.ok, false);
});

Deno.test("jsonEqual and subsetMatch", () => {
  assertEquals(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
  assertEquals(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assertEquals(jsonEqual([1], { 0: 1 }), false);
  assertEquals(subsetMatch({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 }), true);
  assertEquals(subsetMatch({ a: { b: 1 } }, { a: { c: 2 } }), false);
  assertEquals(subsetMatch({ a: [1] }, { a: [1, 2] }), false);
  assertEquals(subsetMatch({ a: null }, {}), false);
  assertEquals(subsetMatch({}, { x: 1 }), true);
});

Deno.test("pointerOf: dotted paths, indexes and quoted keys", () => {
  assertEquals(pointerOf("expect.reason"), "/expect/reason");
  assertEquals(pointerOf("expect.tools[1].input"), "/expect/tools/1/input");
  assertEquals(pointerOf('expect.files["src/a.b~c"]'), "/expect/files/src~1a.b~0c");
});

Deno.test("refersTo: by id, or a substring of the command, args or prompt", () => {
  const hook = commandRegistration("./hooks/guard.sh --strict");
  assertEquals(refersTo("guard.sh", hook), true);
  assertEquals(refersTo("--strict", hook), true);
  assertEquals(refersTo(hook.id, hook), true);
  assertEquals(refersTo("other", hook), false);
  const prompt = promptRegistration(
    "Check that the tests ran before stopping, carefully and fully",
  );
  assertEquals(refersTo("carefully and fully", prompt), true);
});

Deno.test("decisionName: deny is PreToolUse's word for block, and the two are the same", () => {
  const block = { kind: "block", reason: "r", blocks: [] } as const;
  assertEquals(decisionName("PreToolUse", block), "deny");
  assertEquals(decisionName("Stop", block), "block");
  assertEquals(sameDecision("block", "deny"), true);
  assertEquals(sameDecision("deny", "block"), true);
  assertEquals(sameDecision("allow", "ask"), false);
});

Deno.test("FailureList: a path, a message, the values, and the line of the expectation", () => {
  const failures = new FailureList(
    "/cases/4",
    (p) => (p === "/cases/4/expect/context" ? 40 : undefined),
  );
  failures.text("expect.context", "the context", { matches: "x+" }, "y");
  failures.text("expect.reason", "the reason", "r", null);
  failures.text("expect.stopReason", "the stopReason", { matches: "(" }, "s");
  assertEquals(failures.failures.map((f) => [f.path, f.message, f.line]), [
    ["expect.context", 'Expected the context /x+/, but it is "y"', 40],
    ["expect.reason", 'Expected the reason "r", but there is none', undefined],
    [
      "expect.stopReason",
      'Invalid regular expression "(": Invalid regular expression: /(/: Unterminated group',
      undefined,
    ],
  ]);
});

Deno.test("checkSessionExpectations: files, meta subset, notices and stop reasons", () => {
  const failures = new FailureList("/cases/0");
  checkSessionExpectations({
    files: { "a.txt": "A", "gone.txt": null, "new.txt": "N" },
    meta: { tokens: { generated: 3 } },
    notices: ["one", { matches: "^two" }],
    stopReason: ["end_turn", "refusal"],
    agentText: { matches: "hello" },
  }, {
    firings: [],
    tools: [],
    modelTexts: [],
    evaluatorTexts: [],
    shellExecuted: false,
    files: { "a.txt": "A", "gone.txt": "still here", "new.txt": null },
    responses: [{ stopReason: "end_turn" }, {
      stopReason: "refusal",
      _meta: { tokens: { generated: 4 } },
    }],
    notices: ["one", "two!"],
    agentText: "well, hello",
  }, failures);
  assertEquals(failures.failures.map((f) => [f.path, f.message]), [
    ['expect.files["gone.txt"]', 'Expected "gone.txt" not to exist, but it does'],
    ['expect.files["new.txt"]', 'Expected "new.txt" to exist, but it does not'],
    [
      'expect.meta["tokens"]',
      'Expected the last response\'s _meta "tokens" to be {"generated":3}, but it is ' +
      '{"generated":4}',
    ],
  ]);
});

function metaFailures(
  meta: Record<string, unknown>,
  actual: Record<string, unknown> | undefined,
): string[][] {
  const failures = new FailureList("/cases/0", (p) => p === "/cases/0/expect/meta/a~1b" ? 9 : 1);
  checkSessionExpectations({ meta }, {
    firings: [],
    tools: [],
    modelTexts: [],
    evaluatorTexts: [],
    shellExecuted: false,
    files: {},
    responses: [{ stopReason: "end_turn", ...(actual === undefined ? {} : { _meta: actual }) }],
    notices: [],
    agentText: "",
  }, failures);
  return failures.failures.map((f) => [f.path, f.message, String(f.line)]);
}

Deno.test("meta: a {matches} value is a regex over a string, exact JSON stays exact", () => {
  const meta = {
    hook_reason: { matches: "^run the tests" },
    hook_should_continue: true,
    nested: { id: { matches: "^toolu_" }, n: 1 },
  };
  const actual = {
    hook_reason: "run the tests first",
    hook_should_continue: true,
    nested: { id: "toolu_42", n: 1, more: "ignored" },
  };
  assertEquals(metaFailures(meta, actual), []);
  assertEquals(
    metaFailures(meta, {
      hook_reason: "skip them",
      hook_should_continue: false,
      nested: { id: 42, n: 1 },
    }),
    [
      [
        'expect.meta["hook_reason"]',
        'Expected the last response\'s _meta "hook_reason" to be /^run the tests/, but it is ' +
        '"skip them"',
        "1",
      ],
      [
        'expect.meta["hook_should_continue"]',
        'Expected the last response\'s _meta "hook_should_continue" to be true, but it is false',
        "1",
      ],
      [
        'expect.meta["nested"]',
        'Expected the last response\'s _meta "nested" to be ' +
        '{"id":{"matches":"^toolu_"},"n":1}, but it is {"id":42,"n":1}',
        "1",
      ],
    ],
  );
});

Deno.test("meta: a key the response lacks fails at that key's line, _meta or not", () => {
  const want = [[
    'expect.meta["a/b"]',
    'Expected the last response\'s _meta "a/b" to be /x/, but it has no such key',
    "9",
  ]];
  assertEquals(metaFailures({ "a/b": { matches: "x" } }, {}), want);
  assertEquals(metaFailures({ "a/b": { matches: "x" } }, undefined), want);
});

Deno.test("subsetMatch: {matches} tests strings only; other objects are subsets", () => {
  assertEquals(subsetMatch({ matches: "^a" }, "abc"), true);
  assertEquals(subsetMatch({ matches: "^a" }, "cba"), false);
  assertEquals(subsetMatch({ matches: "1" }, 1), false);
  // Two keys: an ordinary object expected as a subset, not a regex.
  assertEquals(subsetMatch({ matches: "^a", other: 1 }, { matches: "^a", other: 1 }), true);
  assertEquals(subsetMatch([{ matches: "b" }], ["abc"]), true);
});

Deno.test("matchText: {contains} finds its text anywhere, whatever the field's mode", () => {
  assertEquals(matchText({ contains: "b c" }, "a b c d"), { ok: true, matched: true });
  assertEquals(matchText({ contains: "b c" }, "a b d"), { ok: true, matched: false });
  assertEquals(matchText({ contains: "x" }, null), { ok: true, matched: false });
  assertEquals(matchText({ contains: "(" }, "f(x)"), { ok: true, matched: true }, "not a regex");
  assertEquals(subsetMatch({ reason: { contains: "tests" } }, { reason: "run the tests" }), true);
  assertEquals(subsetMatch({ reason: { contains: "lint" } }, { reason: "run the tests" }), false);
  assertEquals(subsetMatch({ n: { contains: "4" } }, { n: 42 }), false, "only a string holds text");
});

/** The failures of `expect` (only what is given) against observations with these files and texts. */
function sessionFailures(
  expect: Parameters<typeof checkSessionExpectations>[0],
  seen: { files?: Record<string, string | null>; evaluatorTexts?: string[] },
): string[][] {
  const failures = new FailureList("/cases/0");
  checkSessionExpectations(expect, {
    firings: [],
    tools: [],
    modelTexts: ["the session's model text"],
    evaluatorTexts: seen.evaluatorTexts ?? [],
    shellExecuted: false,
    files: seen.files ?? {},
    responses: [{ stopReason: "end_turn" }],
    notices: [],
    agentText: "",
  }, failures);
  return failures.failures.map((f) => [f.path, f.message]);
}

Deno.test("expect.files: {matches} and {contains} test the content; null still means absent", () => {
  const files = { "log.txt": "SessionEnd other\nSessionEnd clear\n", "gone.txt": null };
  assertEquals(
    sessionFailures({
      files: {
        "log.txt": { contains: "SessionEnd clear" },
        "gone.txt": null,
      },
    }, { files }),
    [],
  );
  assertEquals(
    sessionFailures({ files: { "log.txt": { matches: "^SessionEnd other\\nSessionEnd" } } }, {
      files,
    }),
    [],
  );
  assertEquals(
    sessionFailures({
      files: {
        "log.txt": { contains: "SessionEnd logout" },
        "gone.txt": { matches: "." },
      },
    }, { files: { ...files, "log.txt": "SessionEnd other\n" } }),
    [
      [
        'expect.files["log.txt"]',
        'Expected the content of "log.txt" to contain "SessionEnd logout", but it does not',
      ],
      ['expect.files["gone.txt"]', 'Expected "gone.txt" to exist, but it does not'],
    ],
  );
  assertEquals(
    sessionFailures({ files: { "log.txt": { matches: "^clear" } } }, { files }),
    [[
      'expect.files["log.txt"]',
      'Expected the content of "log.txt" to be /^clear/, but it does not',
    ]],
  );
});

Deno.test("evaluatorSaw and evaluatorNeverSaw: what prompt and agent hooks' evaluator received, apart from the model", () => {
  const evaluatorTexts = ['Did the agent run the tests? {"last_assistant_message":"done"}'];
  assertEquals(
    sessionFailures({
      evaluatorSaw: ["run the tests?", { matches: "last_assistant_message.+done" }],
      evaluatorNeverSaw: ["the session's model text", { contains: "API key" }],
    }, { evaluatorTexts }),
    [],
  );
  assertEquals(
    sessionFailures({
      evaluatorSaw: [{ contains: "lint" }],
      evaluatorNeverSaw: ["tests"],
    }, { evaluatorTexts }),
    [
      ["expect.evaluatorSaw[0]", 'The evaluator of prompt and agent hooks never received "lint"'],
      [
        "expect.evaluatorNeverSaw[0]",
        'The evaluator of prompt and agent hooks received "tests": ' +
        JSON.stringify(evaluatorTexts[0]),
      ],
    ],
  );
  assertEquals(sessionFailures({ evaluatorSaw: ["tests"] }, {}), [[
    "expect.evaluatorSaw[0]",
    'The evaluator of prompt and agent hooks received nothing, so never "tests"',
  ]]);
});
