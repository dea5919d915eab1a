/**
 * Event cases see a firing as a session would: plain stdout is context where the event reads it,
 * and `notices` are what the user would be shown, in the session's own words.
 */
import { assertEquals } from "../helpers/assert.ts";
import {
  command,
  failureSummary,
  hooksSettings,
  runEvent,
  withTempProject,
} from "./scenario_project.ts";

const PLAIN = "cat > /dev/null; echo 'Branch: main'";
const JSON_CONTEXT = `cat > /dev/null; echo '{"additionalContext":"from json"}'`;

Deno.test("context: the plain stdout of SessionStart and UserPromptSubmit hooks is context, before additionalContext", async () => {
  const hooks = [{ hooks: [command(JSON_CONTEXT), command(PLAIN)] }];
  await withTempProject({
    ".claude/settings.json": hooksSettings({ SessionStart: hooks, UserPromptSubmit: hooks }),
  }, async (project) => {
    for (const [event, input] of [["SessionStart", {}], ["UserPromptSubmit", { prompt: "hi" }]]) {
      const passed = await runEvent(project, {
        name: "plain stdout",
        event,
        input,
        expect: { context: "Branch: main\nfrom json" },
      });
      assertEquals(failureSummary(passed), [], String(event));
      const failed = await runEvent(project, {
        name: "plain stdout",
        event,
        input,
        expect: { context: "from json" },
      });
      assertEquals(failureSummary(failed), [[
        "expect.context",
        'Expected the context "from json", but it is "Branch: main\\nfrom json"',
      ]]);
    }
  });
});

Deno.test("context: plain stdout of an event that does not read it is no context", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command(PLAIN)] }],
    }),
  }, async (project) => {
    const result = await runEvent(project, {
      name: "pre tool plain",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { context: { matches: "Branch" } },
    });
    assertEquals(failureSummary(result), [[
      "expect.context",
      "Expected the context /Branch/, but there is none",
    ]]);
  });
});

const SAYS = `cat > /dev/null; echo '{"systemMessage":"formatted the file"}'`;
const STOPS = `cat > /dev/null; echo '{"continue":false,"stopReason":"frozen"}'`;
const CRASHES = "cat > /dev/null; echo boom >&2; exit 1";
const BLOCKS = "cat > /dev/null; echo 'no secrets in prompts' >&2; exit 2";

Deno.test("notices: systemMessages name the tool, a failure and a stop are shown, in order", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PostToolUse: [{ hooks: [command(SAYS), command(CRASHES), command(STOPS)] }],
    }),
  }, async (project) => {
    const spec = (notices: unknown) => ({
      name: "notices",
      event: "PostToolUse",
      input: { tool_name: "fs_write", tool_input: {}, tool_response: {} },
      expect: { notices },
    });
    const passed = await runEvent(
      project,
      spec([
        "PostToolUse:fs_write says: formatted the file",
        { matches: "^PostToolUse:fs_write hook stopped continuation: frozen$" },
        { matches: "^A hook gave no usable answer, so it didn't check this action\\.\\n" },
      ]),
    );
    assertEquals(failureSummary(passed), []);

    const tooFew = await runEvent(project, spec(["PostToolUse:fs_write says: formatted the file"]));
    assertEquals(tooFew.failures.map((f) => f.path), ["expect.notices"]);
    assertEquals(
      tooFew.failures[0]?.message.startsWith(
        'Expected 1 notice(s), but there are 3: "PostToolUse:fs_write says: formatted the file", ',
      ),
      true,
      tooFew.failures[0]?.message,
    );

    const wrong = await runEvent(
      project,
      spec(["PostToolUse says: formatted the file", { matches: "stopped" }, { matches: "." }]),
    );
    assertEquals(failureSummary(wrong), [[
      "expect.notices[0]",
      'Expected notice 1 "PostToolUse says: formatted the file", but it is ' +
      '"PostToolUse:fs_write says: formatted the file"',
    ]]);
  });
});

Deno.test("notices: a UserPromptSubmit block shows the refusal quoting the prompt; no hooks, no notices", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({ UserPromptSubmit: [{ hooks: [command(BLOCKS)] }] }),
  }, async (project) => {
    const blocked = await runEvent(project, {
      name: "blocked prompt",
      event: "UserPromptSubmit",
      input: { prompt: "my key is hunter2" },
      expect: {
        notices: [
          "UserPromptSubmit operation blocked by hook:\n" +
          `[${BLOCKS}]: no secrets in prompts\n\nOriginal prompt: my key is hunter2`,
        ],
      },
    });
    assertEquals(failureSummary(blocked), []);
    const quiet = await runEvent(project, {
      name: "stop fires nothing",
      event: "Stop",
      expect: { notices: [{ matches: "anything" }] },
    });
    assertEquals(failureSummary(quiet), [[
      "expect.notices",
      "Expected 1 notice(s), but there are 0",
    ]]);
  });
});
