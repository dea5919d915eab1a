/**
 * How a scenario that does not match the schema is described: the field, what was wanted, a
 * suggestion, at the line of the mistake.
 */
import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { lines, problemsOf, where } from "./scenario_files.ts";

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
    '"name", "event", "input", "env", "home", "isolate", "settings", "compat", "pluginDirs" or ' +
    '"expect") at ' +
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
    '"PostToolUseFailure", "Notification", "Stop", "PermissionRequest", "SessionEnd", ' +
    '"PostToolBatch", "PreCompact", "PostCompact"';
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

Deno.test("an absolute path in expect.files is refused: it would name a file the case never touched, not its copy's", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [{',
    '    "name": "abs", "session": { "model": { "turns": [] }, "prompts": ["hi"] },',
    '    "expect": { "files": { "out.txt": null, "/work/project/out.txt": null } }',
    "  }]",
    "}",
  ));
  assertEquals(where(problems), [
    '4:45 /cases/0/expect/files/~1work~1project~1out.txt Invalid scenario "s.test.jsonc": ' +
    '"/work/project/out.txt" must be a path relative to the case\'s copy of the project: an ' +
    "absolute one names a file the case never touched " +
    "at /cases/0/expect/files/~1work~1project~1out.txt",
  ]);
});

Deno.test("the new assertions' fields get suggestions, a meta regex must compile, envFile needs SessionStart", async () => {
  const problems = await problemsOf(lines(
    "{",
    '  "cases": [',
    '    { "name": "a", "event": "SessionStart", "expect": { "envFiel": {}, "notice": [] } },',
    '    { "name": "b", "event": "Stop", "expect": { "envFile": { "A": "1" } } },',
    '    { "name": "c", "session": { "model": { "turns": [] }, "prompts": ["p"] },',
    '      "expect": { "meta": { "hook_reason": { "matches": "(" } } } }',
    "  ]",
    "}",
  ));
  assertEquals(where(problems), [
    '3:57 /cases/0/expect/envFiel Invalid scenario "s.test.jsonc": unknown field "envFiel" ' +
    '(did you mean "envFile"?) at /cases/0/expect/envFiel',
    '3:72 /cases/0/expect/notice Invalid scenario "s.test.jsonc": unknown field "notice" ' +
    '(did you mean "notices"?) at /cases/0/expect/notice',
    '4:49 /cases/1/expect/envFile Invalid scenario "s.test.jsonc": "envFile": only ' +
    'SessionStart hooks get a CLAUDE_ENV_FILE: fire SessionStart or remove "envFile" at ' +
    "/cases/1/expect/envFile",
    '6:29 /cases/2/expect/meta/hook_reason Invalid scenario "s.test.jsonc": "hook_reason": ' +
    'every {"matches": "<regex>"} must hold a valid JavaScript regular expression at ' +
    "/cases/2/expect/meta/hook_reason",
  ]);
});

Deno.test("an empty {contains} is refused: it would match any text", async () => {
  const problems = await problemsOf(
    '{"cases": [{"name": "x", "event": "Stop", "expect": {"reason": {"contains": ""}}}]}',
  );
  assertEquals(problems.map((p) => p.message), [
    'Invalid scenario "s.test.jsonc": "contains" must not be empty at ' +
    "/cases/0/expect/reason/contains",
  ]);
});
