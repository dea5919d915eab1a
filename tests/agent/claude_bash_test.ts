/** Claude Code's Bash, row by row of claude-compat.md §5. */
import { assertEquals } from "../helpers/assert.ts";
import { bashExecution } from "../../src/agent/tools/claude_shell_result.ts";
import { assertJson, ran, withKitProject } from "./claude_kit_deps.ts";

const response = (stdout: string, interrupted = false) => ({
  stdout,
  stderr: "",
  interrupted,
  isImage: false,
  noOutputExpected: false,
});

Deno.test("Bash exiting non-zero is a failed call: `Exit code N` and the output", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Bash", { command: "echo oops >&2; exit 3", description: "fail" }),
    );
    assertEquals(result.status, "failed");
    assertEquals(result.modelText, "Exit code 3\noops");
    assertEquals(result.interrupted, false);
  });
});

Deno.test("Bash success: the output without its final newline, and Claude Code's response", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Bash", {
        command: "sleep 0.2; echo slow",
        timeout: 5000,
        description: "slow",
      }),
    );
    assertJson(result.hookInput, {
      command: "sleep 0.2; echo slow",
      timeout: 5000,
      description: "slow",
    });
    assertEquals(result.status, "completed");
    assertJson(result.rawOutput, response("slow"));
    assertEquals(result.modelText, "slow");
  });
});

Deno.test("Bash past its timeout fails with exit code 143 and the timeout in seconds", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Bash", { command: "sleep 5; echo never", timeout: 1000, description: "t" }),
    );
    assertEquals(result.status, "failed");
    assertEquals(result.modelText, "Exit code 143\nCommand timed out after 1s");
    assertEquals(result.interrupted, false);
  });
});

Deno.test("Bash merges stderr into stdout", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(await p.call("Bash", { command: "echo out; echo err >&2" }));
    assertJson(result.rawOutput, response("out\nerr"));
    assertEquals(result.modelText, "out\nerr");
  });
});

Deno.test("Bash with no output tells the model so; stdout stays empty", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(await p.call("Bash", { command: "echo changed > ext.txt" }));
    assertEquals(result.status, "completed");
    assertJson(result.rawOutput, response(""));
    assertEquals(result.modelText, "(Bash completed with no output)");
  });
});

Deno.test("Bash noOutputExpected is true for a command that prints nothing by design (touch), as in Claude Code 2.1.332", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(await p.call("Bash", { command: "touch made.txt", description: "t" }));
    assertEquals(result.status, "completed");
    assertJson(result.rawOutput, { ...response(""), noOutputExpected: true });
    // What the model reads is the same as for any command that printed nothing.
    assertEquals(result.modelText, "(Bash completed with no output)");
  });
});

Deno.test("Bash noOutputExpected follows Claude Code's rule: every part silent, a fallback after || aside", async () => {
  const cases: [string, boolean][] = [
    ["mkdir -p a/b && cd a && touch b/c", true],
    ["rm -f gone || true", true],
    ["mv nothing there 2>/dev/null || echo missing", true],
    ["echo changed > ext.txt", false],
    ["touch x; ls", false],
    ["touch y | cat", false],
    ["FOO=1 touch z", false],
    ["true", false],
  ];
  await withKitProject({}, async (p) => {
    for (const [command, expected] of cases) {
      const result = ran(await p.call("Bash", { command }));
      const response = result.rawOutput as { noOutputExpected?: unknown };
      assertEquals(response.noOutputExpected, expected, command);
    }
  });
});

Deno.test("Bash hooks see the schema's key order, no timeout unless given, no unknown keys", async () => {
  await withKitProject({}, async (p) => {
    const result = ran(
      await p.call("Bash", {
        command: "true",
        run_in_background: true,
        description: "background",
        colour: "blue",
      }),
    );
    assertJson(result.hookInput, {
      command: "true",
      description: "background",
      run_in_background: true,
    });
    // Background tasks are not offered: the command has run to completion.
    assertEquals(result.status, "completed");
  });
});

Deno.test("Bash cancelled while running is an interrupted failure", async () => {
  const controller = new AbortController();
  await withKitProject({}, async (p) => {
    setTimeout(() => controller.abort(), 100);
    const result = ran(await p.call("Bash", { command: "sleep 5" }));
    assertEquals(result.status, "failed");
    assertEquals(result.interrupted, true);
  }, controller.signal);
});

Deno.test("Bash without a command is refused before any hook", async () => {
  await withKitProject({}, async (p) => {
    const result = await p.call("Bash", { description: "nothing" });
    assertEquals(
      result.refused,
      "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n" +
        "The required parameter `command` is missing</tool_use_error>",
    );
  });
});

Deno.test("Bash after a cd out of the session's directories: stderr and the model's text say where the shell went back, as in Claude Code", () => {
  const told = (output: string) =>
    bashExecution(
      {
        kind: "exited",
        exitCode: 0,
        signal: null,
        output,
        truncated: false,
        durationMs: 5,
        cwdReset: "/home/u/proj",
      },
      120_000,
      "cd /tmp && echo moved",
    );
  const moved = told("moved\n");
  assertEquals(moved.status, "completed");
  assertEquals(moved.modelText, "moved\nShell cwd was reset to /home/u/proj");
  assertJson(moved.rawOutput, {
    ...response("moved"),
    stderr: "\nShell cwd was reset to /home/u/proj",
  });
  // Without output the notice is all the model reads.
  assertEquals(told("").modelText, "Shell cwd was reset to /home/u/proj");
});
