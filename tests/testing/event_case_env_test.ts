/**
 * The environment a hook saw: `env` checks the variables every command hook was given, and
 * `envFile` what SessionStart hooks wrote to their CLAUDE_ENV_FILEs, read back as a session does.
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import { EventCase } from "../../src/testing/scenarios/scenario_schema.ts";
import {
  command,
  failureSummary,
  hooksSettings,
  OUTER_SECRET,
  runEvent,
  withTempProject,
} from "./scenario_project.ts";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

Deno.test("env: the variables every command hook was given, exact, by regex, or unset", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ hooks: [command("cat > /dev/null"), command("cat > /dev/null; true")] }],
    }),
  }, async (project) => {
    const spec = (env: unknown) => ({
      name: "env",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { env },
    });
    const passed = await runEvent(
      project,
      spec({
        CLAUDE_PROJECT_DIR: project.dir,
        CLAUDE_CODE_SESSION_ID: "test-session-1",
        HOME: { matches: "/home$" },
        OUTER_SECRET: null,
        CLAUDE_ENV_FILE: null,
      }),
    );
    assertEquals(failureSummary(passed), []);

    const failed = await runEvent(
      project,
      spec({
        CLAUDE_PROJECT_DIR: { matches: "^/elsewhere" },
        TZ: null,
        NOT_GIVEN: "x",
      }),
    );
    assertEquals(failureSummary(failed), [
      [
        'expect.env["CLAUDE_PROJECT_DIR"]',
        'Expected the hook "cat > /dev/null" to be given CLAUDE_PROJECT_DIR /^/elsewhere/, but ' +
        `it is ${JSON.stringify(project.dir)}`,
      ],
      [
        'expect.env["TZ"]',
        'Expected the hook "cat > /dev/null" to be given TZ nothing, but it is "UTC"',
      ],
      [
        'expect.env["NOT_GIVEN"]',
        'Expected the hook "cat > /dev/null" to be given NOT_GIVEN "x", but it is not set',
      ],
    ]);
    assert(!JSON.stringify(failed.failures).includes(OUTER_SECRET), "the secret never leaks");
  });
});

Deno.test("env: a case where no command hook ran fails instead of passing on nothing", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PreToolUse: [{ matcher: "fs_write", hooks: [command("cat > /dev/null")] }],
    }),
  }, async (project) => {
    const result = await runEvent(project, {
      name: "nothing ran",
      event: "PreToolUse",
      input: { tool_name: "shell" },
      expect: { env: { CLAUDE_PROJECT_DIR: { matches: "." } } },
    });
    assertEquals(failureSummary(result), [[
      "expect.env",
      "No command hook ran for PreToolUse, so no environment can be checked: " +
      'see "matched" or --explain for why',
    ]]);
  });
});

const WRITES_ENV = [
  'cat > /dev/null; echo "export NODE_ENV=test" >> "$CLAUDE_ENV_FILE"',
  `echo 'export TOOLS="$HOME/bin"' >> "$CLAUDE_ENV_FILE"`,
  'echo "echo not an assignment" >> "$CLAUDE_ENV_FILE"',
].join("; ");

Deno.test("envFile: SessionStart hooks get a CLAUDE_ENV_FILE each, and what they write is read back", async () => {
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      SessionStart: [{ hooks: [command(WRITES_ENV), command("cat > /dev/null")] }],
    }),
  }, async (project) => {
    const spec = (expect: unknown) => ({ name: "env file", event: "SessionStart", expect });
    const passed = await runEvent(
      project,
      spec({
        envFile: { NODE_ENV: "test", TOOLS: { matches: "/home/bin$" }, DEBUG: null },
        env: { CLAUDE_ENV_FILE: { matches: "/session-env/sessionstart-hook-[01]\\.sh$" } },
      }),
    );
    assertEquals(failureSummary(passed), []);

    const failed = await runEvent(project, spec({ envFile: { NODE_ENV: "prod", DEBUG: "1" } }));
    assertEquals(failed.failures.map((f) => f.path), [
      'expect.envFile["NODE_ENV"]',
      'expect.envFile["DEBUG"]',
    ]);
    assertEquals(
      failed.failures[0]?.message,
      'Expected the CLAUDE_ENV_FILEs to set NODE_ENV "prod", but it is "test"',
    );
    const why = failed.failures[1]?.message ?? "";
    assert(
      new RegExp(
        `^Expected the CLAUDE_ENV_FILEs to set DEBUG "1", but it is not set \\(Ignored line 3 of ` +
          `CLAUDE_ENV_FILE ".*${escape("sessionstart-hook-0.sh")}": it is not an assignment`,
      ).test(why),
      why,
    );
  });
});

Deno.test("envFile: only SessionStart gets env files, so the schema refuses it elsewhere", () => {
  const parsed = EventCase.safeParse({
    name: "x",
    event: "PreToolUse",
    input: { tool_name: "shell" },
    expect: { envFile: { A: "1" } },
  });
  assertEquals(parsed.success, false);
  assertEquals(parsed.error?.issues.map((i) => [i.path.join("/"), i.message]), [[
    "expect/envFile",
    'only SessionStart hooks get a CLAUDE_ENV_FILE: fire SessionStart or remove "envFile"',
  ]]);
});
