/**
 * The shell commands of session cases: answered from the scenario by default (nothing runs,
 * locally or in a client terminal), executed with `execute` in the case's hermetic environment,
 * and reported as one or the other.
 */
import { assertEquals } from "../helpers/assert.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";
import {
  command,
  hooksSettings,
  OUTER_SECRET,
  runSession as run,
  shellModel,
  withTempProject,
} from "./scenario_project.ts";

Deno.test("session case: executed shell commands get the hermetic environment, locally and in a client terminal", async () => {
  await withTempProject({}, async (project) => {
    for (const client of [{}, { terminal: true }]) {
      const result = await run(project, {
        name: "env",
        session: {
          model: shellModel(['echo "secret=${OUTER_SECRET:-unset} tz=$TZ home=$HOME"']),
          prompts: ["env"],
          client,
          execute: true,
        },
        expect: {
          modelSaw: [{ matches: "secret=unset tz=UTC home=/.*/home\\b" }],
          modelNeverSaw: [OUTER_SECRET, project.realHome],
          tools: [{ name: "shell", dispatched: true, status: "completed" }],
        },
      });
      assertEquals(result.failures, [], JSON.stringify(client));
    }
  });
});

Deno.test("session case: executed shell commands are reported as run, with their real exit code, locally and in a client terminal", async () => {
  await withTempProject({}, async (project) => {
    for (const client of [{}, { terminal: true }]) {
      const result = await run(project, {
        name: "executed",
        session: {
          model: shellModel(["touch made", "exit 3"]),
          prompts: ["go"],
          client,
          execute: true,
        },
        expect: { files: { made: "" } },
      });
      assertEquals(result.failures, [], JSON.stringify(client));
      assertEquals(result.shellCalls, [
        { command: "touch made", executed: true, exitCode: 0 },
        { command: "exit 3", executed: true, exitCode: 3 },
      ], JSON.stringify(client));
    }
  });
});

Deno.test("session case: shell commands are answered from the scenario, not run, locally and in a client terminal", async () => {
  // The Post hooks send what they read back to the model: hooks see the answer, and a non-zero
  // exit is a failed call (hooks.md §12.1).
  const report = "grep -o '\"exitCode\":[0-9]*' >&2\nexit 2\n";
  const reportFailure = 'grep -o \'"error":"[^"]*"\' >&2\nexit 2\n';
  await withTempProject({
    ".claude/settings.json": hooksSettings({
      PostToolUse: [{ matcher: "shell", hooks: [command("./hooks/report.sh")] }],
      PostToolUseFailure: [{ matcher: "shell", hooks: [command("./hooks/report_failure.sh")] }],
    }),
    "hooks/report.sh": report,
    "hooks/report_failure.sh": reportFailure,
  }, async (project) => {
    for (const client of [{}, { terminal: true }]) {
      const result = await run(project, {
        name: "answered",
        session: {
          model: shellModel(["touch one; echo real-$((40 + 2))", "touch two", "touch three"]),
          prompts: ["go"],
          client,
          shell: [{ output: "pretend one\n" }, { output: "it broke\n", exitCode: 3 }],
        },
        expect: {
          tools: [
            { name: "shell", dispatched: true, status: "completed" },
            { name: "shell", dispatched: true, status: "failed" },
            { name: "shell", dispatched: true, status: "completed" },
          ],
          modelSaw: [
            "pretend one",
            "Exit code 3\nit broke",
            '"exitCode":0',
            '"error":"Exit code 3\\nit broke"',
            "(no output)",
          ],
          modelNeverSaw: ["real-42", '"exitCode":3'],
          files: { one: null, two: null, three: null },
        },
      });
      assertEquals(result.failures, [], JSON.stringify(client));
      assertEquals(result.shellCalls, [
        { command: "touch one; echo real-$((40 + 2))", executed: false, exitCode: 0 },
        { command: "touch two", executed: false, exitCode: 3 },
        { command: "touch three", executed: false, exitCode: 0 },
      ]);
    }
  });
});

Deno.test("session case: a shell call expected not to run says it was only answered", async () => {
  await withTempProject({}, async (project) => {
    const result = await run(project, {
      name: "unguarded",
      session: {
        model: shellModel(["rm -rf victim"]),
        prompts: ["go"],
      },
      expect: { tools: [{ name: "shell", dispatched: false }] },
    });
    assertEquals(result.failures.map((f) => f.message), [
      'Expected "shell" (call 1) not to run, but it was dispatched (the scripted terminal ' +
      "answered it; nothing was executed)",
    ]);
    assertEquals(result.shellCalls, [{ command: "rm -rf victim", executed: false, exitCode: 0 }]);
  });
});

Deno.test("session case (claude): Bash commands are reported as written, and an executed cd carries over, locally and in a client terminal", async () => {
  await withTempProject({ "sub/.keep": "" }, async (project) => {
    for (const client of [{}, { terminal: true }]) {
      const result = await run(project, {
        name: "cd",
        session: {
          model: shellModel(["cd sub", "pwd"]),
          prompts: ["go"],
          client,
          execute: true,
        },
        expect: { modelSaw: [{ matches: "/project/sub\\b" }] },
      }, { profile: compatProfile("claude") });
      assertEquals(result.failures, [], JSON.stringify(client));
      assertEquals(result.shellCalls, [
        { command: "cd sub", executed: true, exitCode: 0 },
        { command: "pwd", executed: true, exitCode: 0 },
      ], JSON.stringify(client));
    }
  });
});
