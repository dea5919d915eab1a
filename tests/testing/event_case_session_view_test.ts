/**
 * Event cases see a firing as a session would: plain stdout is context where the event reads it,
 * and `notices` are what the user would be shown, in the session's own words.
 */
import { assertEquals } from "../helpers/assert.ts";
import { runEventCase } from "../../src/testing/event_case_runner.ts";
import { EventCase } from "../../src/testing/scenario_schema.ts";
import {
  caseInput,
  command,
  hooksSettings,
  type TempProject,
  withTempProject,
} from "./scenario_project.ts";

async function run(project: TempProject, spec: unknown) {
  return await runEventCase(caseInput(project, EventCase.parse(spec)));
}

const summary = (result: Awaited<ReturnType<typeof run>>) =>
  result.failures.map((f) => [f.path, f.message]);

const PLAIN = "cat > /dev/null; echo 'Branch: main'";
const JSON_CONTEXT = `cat > /dev/null; echo '{"additionalContext":"from json"}'`;

Deno.test("context: the plain stdout of SessionStart and UserPromptSubmit hooks is context, before additionalContext", async () => {
  const hooks = [{ hooks: [command(JSON_CONTEXT), command(PLAIN)] }];
  await withTempProject({
    ".claude/settings.json": hooksSettings({ SessionStart: hooks, UserPromptSubmit: hooks }),
  }, async (project) => {
    for (const [event, input] of [["SessionStart", {}], ["UserPromptSubmit", { prompt: "hi" }]]) {
      const passed = await run(project, {
        name: "plain stdout",
        event,
        input,
        expect: { context: "Branch: main\nfrom json" },
      });
      assertEquals(summary(passed), [], String(event));
      const failed = await run(project, {
        name: "plain stdout",
        event,
        input,
        expect: { context: "from json" },
      });
      assertEquals(summary(failed), [[
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
    const result = await run(project, {
      name: "pre tool plain",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { context: { matches: "Branch" } },
    });
    assertEquals(summary(result), [[
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
    const passed = await run(
      project,
      spec([
        "PostToolUse:fs_write says: formatted the file",
        { matches: "^PostToolUse:fs_write hook stopped continuation: frozen$" },
        { matches: "^A hook gave no usable answer, so it didn't check this action\\.\\n" },
      ]),
    );
    assertEquals(summary(passed), []);

    const tooFew = await run(project, spec(["PostToolUse:fs_write says: formatted the file"]));
    assertEquals(tooFew.failures.map((f) => f.path), ["expect.notices"]);
    assertEquals(
      tooFew.failures[0]?.message.startsWith(
        'Expected 1 notice(s), but there are 3: "PostToolUse:fs_write says: formatted the file", ',
      ),
      true,
      tooFew.failures[0]?.message,
    );

    const wrong = await run(
      project,
      spec(["PostToolUse says: formatted the file", { matches: "stopped" }, { matches: "." }]),
    );
    assertEquals(summary(wrong), [[
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
    const blocked = await run(project, {
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
    assertEquals(summary(blocked), []);
    const quiet = await run(project, {
      name: "stop fires nothing",
      event: "Stop",
      expect: { notices: [{ matches: "anything" }] },
    });
    assertEquals(summary(quiet), [[
      "expect.notices",
      "Expected 1 notice(s), but there are 0",
    ]]);
  });
});
