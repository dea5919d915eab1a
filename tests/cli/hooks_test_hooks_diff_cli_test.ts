/**
 * A session case's `expect.hooks` failure as `hooks test` prints it: the firings in the words a
 * scenario is written in, with no `"matcher": null` for an event that has no matcher value; a
 * `"matcher": null` the user writes still expects exactly such an event.
 */
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { hooksTest, scenario } from "./hooks_test_fixture.ts";

const SETTINGS = JSON.stringify({
  hooks: {
    UserPromptSubmit: [{ hooks: [{ type: "command", command: "true" }] }],
    Stop: [{ hooks: [{ type: "command", command: "true" }] }],
  },
});

const session = { model: { turns: [{ text: "ok" }] }, prompts: ["hi"] };

function project(cases: readonly unknown[]) {
  return {
    "project/.claude/settings.json": SETTINGS,
    "project/.claude/hooks-tests/order.test.jsonc": scenario(cases),
  };
}

Deno.test("a wrong list of hooks fired is shown without a matcher the user never wrote", async () => {
  const cases = [{ name: "order", session, expect: { hooks: [{ event: "Stop" }] } }];
  await hooksTest(project(cases), [], (result) => {
    assertEquals(result.code, 1, result.stderr);
    assertStringIncludes(
      result.stdout,
      "The hooks fired differ at position 1: expected Stop, got UserPromptSubmit → none",
    );
    assertStringIncludes(result.stdout, '        +     "event": "UserPromptSubmit",\n');
    assert(!result.stdout.includes('"matcher"'), result.stdout);
  });
});

Deno.test('the json reporter\'s actual firings have no "matcher" where the event has none', async () => {
  const cases = [{ name: "order", session, expect: { hooks: [{ event: "Stop" }] } }];
  await hooksTest(project(cases), ["--reporter", "json"], (result) => {
    assertEquals(result.code, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    const failure = report.results[0].failures[0];
    assertEquals(failure.actual, [
      { event: "UserPromptSubmit", decision: "none" },
      { event: "Stop", decision: "none" },
    ]);
  });
});

Deno.test('"matcher": null written for an event with no matcher value passes, and a wrong matcher fails', async () => {
  const cases = [
    {
      name: "no matcher value",
      session,
      expect: { hooks: [{ event: "UserPromptSubmit", matcher: null }, { event: "Stop" }] },
    },
    {
      name: "a matcher value that is not there",
      session,
      expect: { hooks: [{ event: "UserPromptSubmit", matcher: "startup" }, { event: "Stop" }] },
    },
  ];
  await hooksTest(project(cases), [], (result) => {
    assertEquals(result.code, 1, result.stderr);
    assertStringIncludes(result.stdout, "✓ no matcher value");
    assertStringIncludes(result.stdout, "✗ a matcher value that is not there");
    // Where the event is right, only the keys the user wrote, the right one unmarked.
    const diff = [
      '      "event": "UserPromptSubmit",',
      '-     "matcher": "startup"',
      '+     "matcher": null',
      "    },",
      "    {",
      '      "event": "Stop"',
      "    }",
    ];
    assertStringIncludes(result.stdout, diff.map((line) => `        ${line}\n`).join(""));
    assert(!result.stdout.includes('"decision"'), result.stdout);
  });
});
