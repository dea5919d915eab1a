/**
 * Loading a scenario file: reading it, JSONC syntax, where each case and problem is, and the
 * problems of the whole file.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { linkToDevZero, listenAt, makeFifo, writeSpaces } from "../hooks/special_files.ts";
import { loadScenarioFile, parseScenarioText } from "../../src/testing/scenarios/scenario_file.ts";
import { lines, problemsOf, where, withFiles } from "./scenario_files.ts";

Deno.test("a valid file with comments and trailing commas loads with each case's location", async () => {
  const text = lines(
    "// The guard rails",
    "{",
    '  "home": "fixtures/home", /* an empty HOME with a marker */',
    '  "settings": "fixtures/settings.json",',
    '  "cases": [',
    "    {",
    '      "name": "rm is denied",',
    '      "event": "PreToolUse",',
    '      "input": { "tool_name": "shell", "tool_input": { "command": "rm -rf /" }, },',
    '      "expect": {',
    '        "decision": "deny",',
    '        "reason": { "matches": "BLOCKED" },',
    "      },",
    "    },",
    "    {",
    '      "name": "a session",',
    '      "home": "fixtures/other",',
    '      "settings": { "hooks": {}, "disableAllHooks": true },',
    '      "session": { "model": { "turns": [{ "text": "hi" }] }, "prompts": ["hello"] },',
    '      "expect": { "agentText": "hi" },',
    "    },",
    "  ],",
    "}",
  );
  await withFiles({
    "t/s.test.jsonc": text,
    "t/fixtures/home/": "",
    "t/fixtures/other/": "",
    "t/fixtures/settings.json": '{ "hooks": {} }',
  }, async (dir) => {
    const file = `${dir}/t/s.test.jsonc`;
    const result = await loadScenarioFile(file);
    assert(result.ok, JSON.stringify(!result.ok && result.problems));
    const { scenario } = result;
    assertEquals(scenario.file, file);
    assertEquals(scenario.scenario.cases.map((c) => c.name), ["rm is denied", "a session"]);
    assertEquals(scenario.cases.map((c) => c.location), [
      { file, line: 6, pointer: "/cases/0" },
      { file, line: 15, pointer: "/cases/1" },
    ]);
    assertEquals(scenario.lineOf("/cases/0/expect/reason"), 12);
    assertEquals(scenario.lineOf("/cases/0/expect/decision"), 11);
    // Something the case does not say resolves to its nearest ancestor.
    assertEquals(scenario.lineOf("/cases/0/expect/context"), 10);
    assertEquals(scenario.cases.map((c) => c.home), [
      `${dir}/t/fixtures/home`,
      `${dir}/t/fixtures/other`,
    ]);
    assertEquals(scenario.cases.map((c) => c.settings), [
      { kind: "file", path: `${dir}/t/fixtures/settings.json` },
      { kind: "inline", settings: { hooks: {}, disableAllHooks: true } },
    ]);
  });
});

Deno.test("a case without home or settings has neither", async () => {
  await withFiles({
    "s.test.jsonc": '{"cases": [{"name": "n", "event": "Stop", "expect": {"errors": 0}}]}',
  }, async (dir) => {
    const result = await loadScenarioFile(`${dir}/s.test.jsonc`);
    assert(result.ok);
    assertEquals(result.scenario.cases[0]?.home, undefined);
    assertEquals(result.scenario.cases[0]?.settings, undefined);
  });
});

Deno.test("a JSONC syntax error is reported at its line and column", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "x" "event": "Stop", "expect": {"errors": 0} }',
    "  ]",
    "}",
  ));
  assertEquals(problems, [{
    file: "<dir>/s.test.jsonc",
    line: 3,
    column: 19,
    pointer: "",
    message: 'Invalid scenario "s.test.jsonc": JSONC syntax error: expected ","',
  }]);
});

Deno.test("every problem of a file is reported at once, in file order", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "isolate": "yes",',
    '  "cases": [',
    '    { "name": "", "event": "Stop", "expect": { "decision": "maybe" } },',
    '    { "name": "b", "event": "Stop", "expect": { "matched": "a.sh" } }',
    "  ],",
    '  "extra": 1',
    "}",
  ));
  assertEquals(problems.map((p) => `${p.line} ${p.pointer}`), [
    "2 /isolate",
    "4 /cases/0/name",
    "4 /cases/0/expect/decision",
    "5 /cases/1/expect/matched",
    "7 /extra",
  ]);
  assertEquals(
    problems[0]?.message,
    'Invalid scenario "s.test.jsonc": "isolate" must be true or false, not "yes" at /isolate',
  );
  assertEquals(
    problems[1]?.message,
    'Invalid scenario "s.test.jsonc": "name" must not be empty at /cases/0/name',
  );
});

Deno.test("duplicate case names are reported at the later name", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "same", "event": "Stop", "expect": {"errors": 0} },',
    '    { "name": "other", "event": "Stop", "expect": {"errors": 0} },',
    "    {",
    '      "name": "same", "event": "Stop", "expect": {"errors": 0}',
    "    }",
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '6:7 /cases/2/name Invalid scenario "s.test.jsonc": duplicate case name "same" (case 0, ' +
    "line 3, has it too) at /cases/2/name",
  ]);
});

Deno.test("an unreadable file is one problem naming it", async () => {
  await withFiles({}, async (dir) => {
    const result = await loadScenarioFile(`${dir}/absent.test.jsonc`, { displayPath: "absent" });
    assert(!result.ok);
    assertEquals(result.problems, [{
      file: `${dir}/absent.test.jsonc`,
      line: 1,
      column: 1,
      pointer: "",
      message: 'Cannot read scenario "absent": no such file',
    }]);
  });
});

Deno.test("a top level that is not an object, and an empty file, are refused", () => {
  assertEquals(where(parseScenarioText("f", "[1, 2]", { displayPath: "f" }).problems), [
    '1:1  Invalid scenario "f": the file must hold an object with "cases"',
  ]);
  assertEquals(where(parseScenarioText("f", "", { displayPath: "f" }).problems), [
    '1:1 /cases Invalid scenario "f": missing required field "cases" (an array) at /cases',
  ]);
  assertEquals(where(parseScenarioText("f", '{"cases": []}', { displayPath: "f" }).problems), [
    '1:2 /cases Invalid scenario "f": "cases" must have at least 1 item at /cases',
  ]);
});

Deno.test("a key named __proto__ cannot change an object's prototype", () => {
  const text = lines(
    '{"cases": [{"name": "p", "event": "PreToolUse",',
    '  "input": {"__proto__": {"polluted": true}, "tool_name": "shell"}, "expect": {"errors": 0}}]}',
  );
  const parsed = parseScenarioText("f", text);
  assertEquals(parsed.problems, []);
  const first = parsed.scenario?.cases[0];
  const input = first && "input" in first ? first.input : undefined;
  // Zod leaves an undeclared "__proto__" out of what it returns.
  assertEquals(input, { tool_name: "shell" });
  assertEquals(Object.getPrototypeOf(input), Object.prototype);
});

Deno.test("a scenario file that is a FIFO, a socket, a link to /dev/zero or over 4 MiB is one problem naming it, and nothing waits", async () => {
  await withFiles({}, async (dir) => {
    await makeFifo(`${dir}/fifo.test.jsonc`);
    const listener = listenAt(`${dir}/socket.test.jsonc`);
    await linkToDevZero(`${dir}/zero.test.jsonc`);
    await writeSpaces(`${dir}/big.test.jsonc`, 4 * 1024 * 1024 + 1);
    try {
      const messages: string[][] = [];
      for (const name of ["fifo", "socket", "zero", "big"]) {
        const result = await loadScenarioFile(`${dir}/${name}.test.jsonc`, { displayPath: name });
        assert(!result.ok, `${name} must be refused`);
        messages.push(result.problems.map((problem) => problem.message));
      }
      assertEquals(messages, [
        ['Cannot read scenario "fifo": it is a FIFO, not a regular file'],
        ['Cannot read scenario "socket": it is a socket, not a regular file'],
        ['Cannot read scenario "zero": it is a character device, not a regular file'],
        ['Cannot read scenario "big": it is over the 4 MiB limit (4194305 bytes)'],
      ]);
    } finally {
      listener.close();
    }
  });
});
