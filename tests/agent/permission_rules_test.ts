import { assert, assertEquals } from "../helpers/assert.ts";
import {
  loadPermissionRules,
  parsePermissionRules,
  ruleDecision,
} from "../../src/agent/permissions/permission_rules.ts";
import { withTempDir } from "./temp_dir.ts";

function errors(json: string): readonly string[] {
  const loaded = parsePermissionRules(json, "rules.json");
  assert(!loaded.ok, "expected the rules to be refused");
  return loaded.errors;
}

const PREFIX = 'Cannot load permission rules from "rules.json": ';

Deno.test("a rules file loads from disk and keeps its order", async () => {
  await withTempDir({
    "rules.json": JSON.stringify({
      rules: [
        { tool: "shell", decision: "deny" },
        { tool: "fs_.*", decision: "allow" },
        { tool: "*", decision: "ask" },
      ],
    }),
  }, async (dir) => {
    const loaded = await loadPermissionRules(`${dir}/rules.json`);
    assert(loaded.ok);
    assertEquals(loaded.rules.map((rule) => [rule.tool, rule.decision]), [
      ["shell", "deny"],
      ["fs_.*", "allow"],
      ["*", "ask"],
    ]);
    assertEquals(ruleDecision(loaded.rules, "shell"), "deny");
    assertEquals(ruleDecision(loaded.rules, "fs_write"), "allow");
    assertEquals(ruleDecision(loaded.rules, "mcp__x__y"), "ask");
  });
});

Deno.test("matchers follow the hooks' semantics: lists are exact, others are unanchored regexes", () => {
  const loaded = parsePermissionRules(
    JSON.stringify({
      rules: [
        { tool: "shell", decision: "deny" },
        { tool: "^mcp__gh__", decision: "allow" },
      ],
    }),
    "rules.json",
  );
  assert(loaded.ok);
  assertEquals(ruleDecision(loaded.rules, "shell2"), undefined);
  assertEquals(ruleDecision(loaded.rules, "terminal"), undefined);
  assertEquals(ruleDecision(loaded.rules, "mcp__gh__issue"), "allow");
  assertEquals(ruleDecision(loaded.rules, "x_mcp__gh__issue"), undefined);
  assertEquals(ruleDecision([], "shell"), undefined);
});

Deno.test("a missing file and invalid JSON name the file", async () => {
  const missing = await loadPermissionRules("/nonexistent/rules.json");
  assertEquals(missing, {
    ok: false,
    errors: ['Cannot load permission rules from "/nonexistent/rules.json": no such file'],
  });
  const [invalid] = errors("{rules: []}");
  assert(invalid?.startsWith(`${PREFIX}invalid JSON: `), invalid);
});

Deno.test("shape errors name the JSON pointer of the entry", () => {
  assertEquals(errors("[]"), [`${PREFIX}the file must hold an object with a "rules" array`]);
  assertEquals(errors("{}"), [`${PREFIX}"rules" must be an array of rules at /rules`]);
  assertEquals(errors('{"rules": [{"tool": "shell", "decision": "maybe"}]}'), [
    `${PREFIX}"decision" must be one of "allow", "ask", "deny" at /rules/0/decision`,
  ]);
  assertEquals(errors('{"rules": [{"decision": "allow"}, "shell"]}'), [
    `${PREFIX}"tool" is required and must be a string (a tool-name matcher) at /rules/0/tool`,
    `${PREFIX}a rule must be an object with "tool" and "decision" at /rules/1`,
  ]);
});

Deno.test("unknown keys are errors: a typo must not silently change a permission", () => {
  assertEquals(errors('{"rules": [{"tool": "shell", "decision": "deny", "tols": "x"}]}'), [
    `${PREFIX}unknown key "tols" at /rules/0`,
  ]);
  assertEquals(errors('{"rules": [], "mode": "x", "other": 1}'), [
    `${PREFIX}unknown keys "mode", "other"`,
  ]);
});

Deno.test("a key given twice is an error naming both lines: a later decision must not silently replace a deny", () => {
  const text = [
    '{"rules": [',
    '  {"tool": "shell", "decision": "deny",',
    '   "decision": "allow"}',
    "]}",
  ].join("\n");
  assertEquals(errors(text), [
    `${PREFIX}"decision" is given twice, at lines 2 and 3; keep one (the second would silently ` +
    "replace the first) at /rules/0/decision",
  ]);
  assertEquals(errors('{"rules": [],\n"rules": [{"tool": "*", "decision": "allow"}]}'), [
    `${PREFIX}"rules" is given twice, at lines 1 and 2; keep one (the second would silently ` +
    "replace the first) at /rules",
  ]);
});

Deno.test("an invalid regular expression is an error at its tool", () => {
  const [message] = errors('{"rules": [{"tool": "fs_(", "decision": "allow"}]}');
  assert(message?.startsWith(`${PREFIX}"fs_(" is not a valid regular expression: `), message);
  assert(message?.endsWith(" at /rules/0/tool"), message);
});
