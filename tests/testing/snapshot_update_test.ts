/**
 * `hooks test --update`: failing expectations rewritten to what was observed, by edits at their
 * spans only; what cannot be expressed is left and listed; the same run then passes.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { CaseResult, ExpectationFailure } from "../../src/testing/scenarios/case_result.ts";
import { runScenarios } from "../../src/testing/runner/run_scenarios.ts";
import { parseScenarioText } from "../../src/testing/scenarios/scenario_file.ts";
import {
  caseKey,
  type ScenarioFileAccess,
  updateScenarioText,
  updateSnapshots,
} from "../../src/testing/snapshot/snapshot_update.ts";
import { command, hooksSettings, withTempProject } from "./scenario_project.ts";

const FILE = "/p/.claude/hooks-tests/guard.test.jsonc";

function failed(
  name: string,
  index: number,
  failures: readonly Omit<ExpectationFailure, "message">[],
  status: CaseResult["status"] = "failed",
): CaseResult {
  return {
    name,
    kind: "event",
    location: { file: FILE, line: 1, pointer: `/cases/${index}` },
    status,
    durationMs: 1,
    failures: failures.map((f) => ({ message: `${f.path} differs`, ...f })),
  };
}

const EVENT_TEXT = `{
  // Guard cases: keep this comment.
  "cases": [
    {
      "name": "denies rm",
      "event": "PreToolUse",
      "input": { "tool_name": "shell", "tool_input": { "command": "rm -rf /" } },
      "expect": {
        "decision": "deny", // the guard refuses
        "reason": { "matches": "^Please" },   /* odd spacing stays */
        "exitCodes": [2],
      },
    },

    {
      "name": "allows ls",
      "event": "PreToolUse",
      "expect": { "decision": "none", "context": "hello" }
    }
  ]
}
`;

Deno.test("an update edits only the failing values: comments and layout stay byte for byte", () => {
  const update = updateScenarioText(FILE, EVENT_TEXT, [
    failed("denies rm", 0, [
      { path: "expect.reason", expected: { matches: "^Please" }, actual: "[g.sh]: Refusing" },
      { path: "expect.exitCodes", expected: [2], actual: [2, 0] },
    ]),
  ]);
  assertEquals(
    update.text,
    EVENT_TEXT.replace('{ "matches": "^Please" }', '"[g.sh]: Refusing"')
      .replace('"exitCodes": [2]', '"exitCodes": [2, 0]'),
  );
  assertEquals(update.left, []);
  assertEquals(update.updatedCases, ["/cases/0"]);
  assertEquals(update.changes.map((c) => [c.line, c.caseName, c.path, c.from, c.to]), [
    [10, "denies rm", "expect.reason", { matches: "^Please" }, {
      kind: "value",
      value: "[g.sh]: Refusing",
    }],
    [11, "denies rm", "expect.exitCodes", [2], { kind: "value", value: [2, 0] }],
  ]);
});

Deno.test("a text expected but absent removes its key; the last expectation is left", () => {
  const update = updateScenarioText(FILE, EVENT_TEXT, [
    failed("allows ls", 1, [{ path: "expect.context", expected: "hello", actual: null }]),
  ]);
  assertEquals(
    update.text,
    EVENT_TEXT.replace('{ "decision": "none", "context": "hello" }', '{ "decision": "none" }'),
  );
  assertEquals(update.changes[0]?.to, { kind: "removed" });

  const only = EVENT_TEXT.replace('"decision": "none", ', "");
  const left = updateScenarioText(FILE, only, [
    failed("allows ls", 1, [{ path: "expect.context", expected: "hello", actual: null }]),
  ]);
  assertEquals(left.text, only);
  assertEquals(left.updatedCases, []);
  assertEquals(left.left.length, 1);
  assert(left.left[0]!.why.includes("must assert something"), left.left[0]!.why);
});

Deno.test("an unknown hook reference is left to edit by hand; the rest is updated", () => {
  const text = EVENT_TEXT.replace('"exitCodes": [2],', '"matched": ["gaurd.sh"],');
  const update = updateScenarioText(FILE, text, [
    failed("denies rm", 0, [
      { path: "expect.decision", expected: "deny", actual: "none" },
      { path: "expect.matched[0]", expected: "gaurd.sh", actual: null },
    ]),
  ]);
  assertEquals(update.text, text.replace('"decision": "deny"', '"decision": "none"'));
  assertEquals(update.left.map((l) => [l.path, l.line, l.why]), [
    ["expect.matched[0]", 11, "expect.matched[0] differs"],
  ]);
  assertEquals(update.updatedCases, []);
  assert(parseScenarioText(FILE, update.text).scenario !== undefined);
});

Deno.test("negative expectations are the user's to change: notMatched is left", () => {
  const text = EVENT_TEXT.replace('"exitCodes": [2],', '"notMatched": ["g.sh"],');
  const update = updateScenarioText(FILE, text, [
    failed("denies rm", 0, [{ path: "expect.notMatched[0]", expected: "g.sh", actual: ["id"] }]),
  ]);
  assertEquals([update.text, update.changes.length, update.left.length], [text, 0, 1]);
});

Deno.test("a file that also holds an invalid case is still updated, the invalid case untouched", () => {
  const text = EVENT_TEXT.replace(
    '"event": "PreToolUse",\n      "expect": { "decision": "none"',
    '"event": "PreToolUsee",\n      "expect": { "decision": "none"',
  );
  assert(text !== EVENT_TEXT);
  const update = updateScenarioText(FILE, text, [
    failed("denies rm", 0, [{ path: "expect.exitCodes", expected: [2], actual: [2, 0] }]),
  ]);
  assertEquals(update.text, text.replace('"exitCodes": [2]', '"exitCodes": [2, 0]'));
});

Deno.test("cases that passed or could not run are not touched", () => {
  const failure = { path: "expect.decision", expected: "deny", actual: "none" };
  const update = updateScenarioText(FILE, EVENT_TEXT, [
    failed("denies rm", 0, [failure], "error"),
    failed("allows ls", 1, [], "passed"),
  ]);
  assertEquals([update.text, update.changes, update.left], [EVENT_TEXT, [], []]);
});

Deno.test("a case that is no longer where the run found it is left", () => {
  const update = updateScenarioText(FILE, EVENT_TEXT, [
    failed("renamed", 0, [{ path: "expect.decision", expected: "deny", actual: "none" }]),
  ]);
  assertEquals(update.text, EVENT_TEXT);
  assert(update.left[0]!.why.includes("run again with --update"));
});

const SESSION_TEXT = `{
  "cases": [
    {
      "name": "writes",
      "session": { "model": { "turns": [] }, "prompts": ["go"] },
      "expect": {
        // Tools, in order.
        "tools": [
          { "name": "fs_read", "dispatched": true },
          { "name": "fs_write", "input": { "path": "a.txt", "content": "old" } }
        ],
        "meta": { "kept": { "deep": 1 }, "gone": true },
        "files": { "dir/a.txt": "old" }
      }
    }
  ]
}
`;

function session(failures: readonly Omit<ExpectationFailure, "message">[]): CaseResult {
  return { ...failed("writes", 0, failures), kind: "session" };
}

Deno.test("a nested path: only the input of the second tool call is rewritten", () => {
  const input = { path: "a.txt", content: "new" };
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([{ path: "expect.tools[1].input", expected: {}, actual: input }]),
  ]);
  assertEquals(
    update.text,
    SESSION_TEXT.replace('"content": "old" }', '"content": "new" }'),
  );
  assertEquals(update.changes.map((c) => [c.path, c.line]), [["expect.tools[1].input", 10]]);
});

Deno.test("a different list of tool calls keeps the fields the user asserted", () => {
  const actual = [
    { name: "fs_read", dispatched: true, input: { path: "x" }, status: "completed" },
    { name: "shell", dispatched: false, input: { command: "rm" }, status: null },
  ];
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([
      { path: "expect.tools", expected: [], actual },
      { path: "expect.tools[1].name", expected: "fs_write", actual: "shell" },
    ]),
  ]);
  assertEquals(
    update.text,
    SESSION_TEXT.replace(
      '{ "name": "fs_write", "input": { "path": "a.txt", "content": "old" } }',
      '{ "name": "shell", "dispatched": false, "input": { "command": "rm" } }',
    ),
  );
  // The entry's name is covered by the whole list.
  assertEquals([update.changes.length, update.left, update.updatedCases], [1, [], ["/cases/0"]]);
});

Deno.test("a tool call of another name gets the new name, and the case must run again", () => {
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([{ path: "expect.tools[1].name", expected: "fs_write", actual: "shell" }]),
  ]);
  assertEquals(update.text, SESSION_TEXT.replace('"name": "fs_write"', '"name": "shell"'));
  assertEquals(update.updatedCases, []);
  assert(update.left[0]!.why.includes("run again with --update"));
});

Deno.test("meta keeps its keys with the values observed; files take null for absent", () => {
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([
      { path: "expect.meta", expected: {}, actual: { kept: { deep: 2, other: 3 }, extra: 1 } },
      { path: 'expect.files["dir/a.txt"]', expected: "old", actual: null },
    ]),
  ]);
  assertEquals(
    update.text,
    SESSION_TEXT.replace('{ "kept": { "deep": 1 }, "gone": true }', '{ "kept": { "deep": 2 } }')
      .replace('{ "dir/a.txt": "old" }', '{ "dir/a.txt": null }'),
  );
  assertEquals(update.updatedCases, ["/cases/0"]);
});

Deno.test("a meta key absent from _meta is dropped, and meta with its last key", () => {
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([
      { path: 'expect.meta["gone"]', expected: true, actual: null },
      { path: 'expect.meta["kept"]', expected: { deep: 1 }, actual: null },
    ]),
  ]);
  assertEquals(
    update.text,
    SESSION_TEXT.replace('        "meta": { "kept": { "deep": 1 }, "gone": true },\n', ""),
  );
  assertEquals(update.updatedCases, ["/cases/0"]);
});

Deno.test("an observed value the schema refuses there is left, and the file is unchanged", () => {
  const update = updateScenarioText(FILE, SESSION_TEXT, [
    session([{ path: "expect.tools[1].input", expected: {}, actual: "not an object" }]),
  ]);
  assertEquals(update.text, SESSION_TEXT);
  assert(update.left[0]!.why.includes("not valid here"), update.left[0]!.why);
});

Deno.test("updateSnapshots writes a file only when something in it changed", async () => {
  const texts: Record<string, string> = { [FILE]: EVENT_TEXT };
  const writes: string[] = [];
  const files: ScenarioFileAccess = {
    read: (file) => Promise.resolve(texts[file]!),
    write: (file, text) => {
      writes.push(file);
      texts[file] = text;
      return Promise.resolve();
    },
  };
  const unexpressible = failed("denies rm", 0, [
    { path: "expect.notMatched[0]", expected: "x", actual: ["id"] },
  ]);
  assertEquals((await updateSnapshots([unexpressible], files)).left.length, 1);
  assertEquals(writes, []);
  const fixable = failed("denies rm", 0, [{ path: "expect.exitCodes", expected: [], actual: [] }]);
  const update = await updateSnapshots([fixable], files);
  assertEquals([writes, [...update.updated]], [[FILE], [caseKey(fixable)]]);
});

Deno.test("after an update the same run passes (a real hook, a real scenario file)", async () => {
  const guard = `if grep -q 'rm -rf'; then echo 'Refusing rm -rf' >&2; exit 2; fi\n` +
    `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ok"}}'`;
  const scenario = `{
  // Written by hand; the values below are stale.
  "cases": [
    {
      "name": "rm is refused",
      "event": "PreToolUse",
      "input": { "tool_name": "shell", "tool_input": { "command": "rm -rf /" } },
      "expect": { "decision": "deny", "reason": { "matches": "^Please" }, "exitCodes": [0] }
    },
    {
      "name": "ls gets context",
      "event": "PreToolUse",
      "input": { "tool_name": "shell", "tool_input": { "command": "ls" } },
      "expect": {
        "decision": "none",
        "context": "stale" // what the guard adds
      }
    }
  ]
}
`;
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "shell", hooks: [command('"$CLAUDE_PROJECT_DIR"/guard.sh')] }],
    }),
    "guard.sh": guard,
    ".claude/hooks-tests/guard.test.jsonc": scenario,
  }, async (project) => {
    const file = `${project.dir}/.claude/hooks-tests/guard.test.jsonc`;
    const run = () =>
      runScenarios({ projectDir: project.dir, files: [file], env: project.outerEnv });
    const first = await run();
    assertEquals(first.results.map((r) => r.status), ["failed", "failed"]);
    const update = await updateSnapshots(first.results, {
      read: (path) => Deno.readTextFile(path),
      write: (path, text) => Deno.writeTextFile(path, text),
    });
    assertEquals(update.left, []);
    assertEquals(update.updated.size, 2);
    const written = await Deno.readTextFile(file);
    assert(written.includes("// Written by hand; the values below are stale."));
    assert(written.includes('"context": "ok" // what the guard adds'), written);
    assert(written.includes('"exitCodes": [2]'), written);
    const second = await run();
    assertEquals(second.results.map((r) => r.status), ["passed", "passed"]);
  });
});
