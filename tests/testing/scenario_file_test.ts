import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { loadScenarioFile, parseScenarioText } from "../../src/testing/scenario_file.ts";
import type { ScenarioProblem } from "../../src/testing/scenario_run.ts";

/** Writes `files` (path → text; a path ending in "/" is a directory) into a fresh temp dir. */
async function withFiles<T>(
  files: Record<string, string>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "scenario_file_test_" });
  try {
    for (const [path, text] of Object.entries(files)) {
      const full = `${dir}/${path}`;
      if (path.endsWith("/")) {
        await Deno.mkdir(full, { recursive: true });
        continue;
      }
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, text);
    }
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Loads `text` as `s.test.jsonc` beside `files`; problems are expected. */
async function problemsOf(
  text: string,
  files: Record<string, string> = {},
): Promise<ScenarioProblem[]> {
  return await withFiles({ ...files, "s.test.jsonc": text }, async (dir) => {
    const result = await loadScenarioFile(`${dir}/s.test.jsonc`, { displayPath: "s.test.jsonc" });
    assert(!result.ok, "expected the scenario to be refused");
    return result.problems.map((p) => ({ ...p, file: p.file.replace(dir, "<dir>") }));
  });
}

/** Where each problem is, and its message: the parts a test pins down. */
function where(problems: readonly ScenarioProblem[]): string[] {
  return problems.map((p) => `${p.line}:${p.column} ${p.pointer} ${p.message}`);
}

const lines = (...text: string[]) => text.join("\n");

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

Deno.test("an unknown field in a case names the field and what the case may hold", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    "    {",
    '      "name": "x",',
    '      "event": "Stop",',
    '      "expect": {"errors": 0},',
    '      "timeout": 5',
    "    }",
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '7:7 /cases/0/timeout Invalid scenario "s.test.jsonc": unknown field "timeout" (expected ' +
    '"name", "event", "input", "env", "home", "isolate", "settings" or "expect") at ' +
    "/cases/0/timeout",
  ]);
});

Deno.test("a misspelt field gets a suggestion", async () => {
  const problems = await problemsOf(
    '{"cases": [{"name": "x", "event": "Stop", "expect": {"reason": {"match": "a"}}}]}',
  );
  assertEquals(problems.map((p) => p.message), [
    'Invalid scenario "s.test.jsonc": missing required field "matches" (a string) at ' +
    "/cases/0/expect/reason/matches",
    'Invalid scenario "s.test.jsonc": unknown field "match" (did you mean "matches"?) at ' +
    "/cases/0/expect/reason/match",
  ]);
});

Deno.test("a wrong type deep in expect is reported at the value", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "ok", "event": "Stop", "expect": {"errors": 0} },',
    "    {",
    '      "name": "exit codes",',
    '      "event": "Stop",',
    '      "expect": {',
    '        "exitCodes": [',
    "          0,",
    '          "2"',
    "        ],",
    '        "errors": "none"',
    "      }",
    "    }",
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '10:11 /cases/1/expect/exitCodes/1 Invalid scenario "s.test.jsonc": item 1 of "exitCodes" ' +
    'must be an integer, not "2" at /cases/1/expect/exitCodes/1',
    '12:9 /cases/1/expect/errors Invalid scenario "s.test.jsonc": "errors" must be an integer, ' +
    'not "none" at /cases/1/expect/errors',
  ]);
});

Deno.test("an unknown event name lists the events and suggests the nearest", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "x", "event": "PreToolUse", "expect": {"errors": 0} },',
    '    { "name": "y", "event": "preToolUse", "expect": {"errors": 0} },',
    '    { "name": "z", "event": "BeforeEverything", "expect": {"errors": 0} }',
    "  ]",
    "}",
  ));
  const events = '"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", ' +
    '"PostToolUseFailure", "Notification", "Stop"';
  assertEquals(where(problems), [
    `4:20 /cases/1/event Invalid scenario "s.test.jsonc": "event" must be one of ${events}, ` +
    'not "preToolUse" (did you mean "PreToolUse"?) at /cases/1/event',
    `5:20 /cases/2/event Invalid scenario "s.test.jsonc": "event" must be one of ${events}, ` +
    'not "BeforeEverything" at /cases/2/event',
  ]);
});

Deno.test("a session case's mistakes are described as a session case's", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [{',
    '    "name": "s",',
    '    "session": { "model": { "turns": [] }, "prompts": [] },',
    '    "expect": { "stopReason": "done" }',
    "  }]",
    "}",
  ));
  assertEquals(where(problems), [
    '4:44 /cases/0/session/prompts Invalid scenario "s.test.jsonc": "prompts" must have at ' +
    "least 1 item at /cases/0/session/prompts",
    '5:17 /cases/0/expect/stopReason Invalid scenario "s.test.jsonc": "stopReason" must be one ' +
    'of "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", not "done" at ' +
    "/cases/0/expect/stopReason",
  ]);
});

Deno.test("session shell answers: a misspelt field, a bad exit code, answers beside execute, isolate false", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [{',
    '    "name": "answers",',
    '    "session": { "model": { "turns": [] }, "prompts": ["p"],',
    '      "shell": [{ "outptu": "x" }, { "exitCode": 256 }] },',
    '    "expect": { "stopReason": "end_turn" }',
    "  }, {",
    '    "name": "both",',
    '    "session": { "model": { "turns": [] }, "prompts": ["p"], "execute": true, "shell": [] },',
    '    "expect": { "stopReason": "end_turn" }',
    "  }, {",
    '    "name": "in place",',
    '    "isolate": false,',
    '    "session": { "model": { "turns": [] }, "prompts": ["p"] },',
    '    "expect": { "stopReason": "end_turn" }',
    "  }]",
    "}",
  ));
  assertEquals(where(problems), [
    '5:19 /cases/0/session/shell/0/outptu Invalid scenario "s.test.jsonc": unknown field ' +
    '"outptu" (did you mean "output"?) at /cases/0/session/shell/0/outptu',
    '5:38 /cases/0/session/shell/1/exitCode Invalid scenario "s.test.jsonc": "exitCode" must be ' +
    "at most 255, not 256 at /cases/0/session/shell/1/exitCode",
    '9:79 /cases/1/session/shell Invalid scenario "s.test.jsonc": "shell": answers are never ' +
    'used when "execute" is true (the commands run): remove one of them at /cases/1/session/shell',
    '13:5 /cases/2/isolate Invalid scenario "s.test.jsonc": "isolate" must be true, not false: ' +
    'a session case always runs in a temporary copy of the project: remove "isolate" at ' +
    "/cases/2/isolate",
  ]);
});

Deno.test("a case that is neither kind says which fields make one", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "x", "expect": {"errors": 0} },',
    "    7",
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '3:5 /cases/0 Invalid scenario "s.test.jsonc": item 0 of "cases" needs "event" or "session" ' +
    "at /cases/0",
    '4:5 /cases/1 Invalid scenario "s.test.jsonc": item 1 of "cases" must be an object, not 7 ' +
    "at /cases/1",
  ]);
});

Deno.test("a missing field is reported at the object that lacks it", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    "    {",
    '      "name": "x",',
    '      "event": "Stop"',
    "    }",
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '3:5 /cases/0/expect Invalid scenario "s.test.jsonc": missing required field "expect" ' +
    "(an object) at /cases/0/expect",
  ]);
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

Deno.test("a home directory that does not exist is reported at its field", async () => {
  const problems = await problemsOf(
    lines(
      "{",
      '  "home": "fixtures/home",',
      '  "cases": [',
      '    { "name": "a", "event": "Stop", "expect": {"errors": 0} },',
      '    { "name": "b", "event": "Stop", "home": "fixtures/nowhere", "expect": {"errors": 0} },',
      '    { "name": "c", "event": "Stop", "home": "fixtures/file.txt", "expect": {"errors": 0} }',
      "  ]",
      "}",
    ),
    { "fixtures/home/": "", "fixtures/file.txt": "not a directory" },
  );
  assertEquals(problems.map((p) => `${p.line}:${p.column} ${p.pointer}`), [
    "5:37 /cases/1/home",
    "6:37 /cases/2/home",
  ]);
  assert(
    problems[0]?.message.startsWith(
      'Invalid scenario "s.test.jsonc": home directory "fixtures/nowhere" does not exist (looked for "',
    ),
    problems[0]?.message,
  );
  assertEquals(
    problems[1]?.message,
    'Invalid scenario "s.test.jsonc": home "fixtures/file.txt" is not a directory at /cases/2/home',
  );
});

Deno.test("a settings file that is missing or not JSON is reported at its field", async () => {
  const problems = await problemsOf(
    lines(
      "{",
      '  "settings": "missing.json",',
      '  "cases": [',
      '    { "name": "a", "event": "Stop", "settings": "bad.json", "expect": {"errors": 0} }',
      "  ]",
      "}",
    ),
    { "bad.json": '{\n  "hooks": {\n    "Stop": []\n  \n' },
  );
  assertEquals(problems.map((p) => `${p.line}:${p.column} ${p.pointer}`), [
    "2:3 /settings",
    "4:37 /cases/0/settings",
  ]);
  assert(problems[0]?.message.includes('settings file "missing.json" does not exist'));
  assertEquals(
    problems[1]?.message,
    'Invalid scenario "s.test.jsonc": cannot use settings file "bad.json": invalid JSON: ' +
      'expected "}" (line 5, column 1) at /cases/0/settings',
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

Deno.test("an expect that asserts nothing, and a regex that does not compile, are refused at load time", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "empty", "event": "Stop", "expect": {} },',
    '    { "name": "bad regex", "event": "Stop", "expect": { "reason": { "matches": "(" } } }',
    "  ]",
    "}",
  ));
  assertEquals(problems.map((p) => [p.line, p.pointer]), [
    [3, "/cases/0/expect"],
    [4, "/cases/1/expect/reason/matches"],
  ]);
  assertStringIncludes(problems[0]!.message, "must assert something");
  assertStringIncludes(problems[1]!.message, "must be a valid JavaScript regular expression");
});
