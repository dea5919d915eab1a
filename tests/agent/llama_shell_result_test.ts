/**
 * The llama profile's `shell` result, from each way a run can end (hooks.md §12.1): exit 0
 * completes; a non-zero exit, a signal, a timeout and a cancel fail, in the same words as the
 * claude profile's Bash, with the llama profile's own `tool_response`.
 */
import { assertEquals } from "../helpers/assert.ts";
import { bashExecution } from "../../src/agent/tools/claude_shell_result.ts";
import { shellExecution } from "../../src/agent/tools/llama_shell_result.ts";
import type { ShellRunResult } from "../../src/agent/shell/shell_runner.ts";

const text = (value: string) => ({
  type: "content" as const,
  content: { type: "text" as const, text: value },
});

const exited = (
  output: string,
  exitCode: number | null,
  signal: string | null = null,
  more: Partial<{ truncated: boolean; omittedBytes: number; terminalId: string }> = {},
): ShellRunResult => ({
  kind: "exited",
  output,
  truncated: false,
  exitCode,
  signal,
  durationMs: 12,
  ...more,
});

Deno.test("llama shell: exit 3 fails with `Exit code 3` and the output, the text the claude profile's Bash gives", () => {
  const run = exited("oops\n", 3);
  const result = shellExecution(run, 120_000);
  assertEquals(result.status, "failed");
  assertEquals(result.modelText, "Exit code 3\noops");
  assertEquals(result.content, [text("Exit code 3\noops")]);
  assertEquals(result.interrupted, false);
  assertEquals(result.rawOutput, {
    stdout: "oops\n",
    stderr: "",
    interrupted: false,
    truncated: false,
    durationMs: 12,
    exitCode: 3,
    signal: null,
  });
  assertEquals(result.modelText, bashExecution(run, 120_000, "echo oops; exit 3").modelText);
});

Deno.test("llama shell: exit 0 completes with the output as printed", () => {
  const result = shellExecution(exited("hi\n", 0), 120_000);
  assertEquals([result.status, result.modelText], ["completed", "hi\n"]);
  assertEquals(shellExecution(exited("", 0), 120_000).modelText, "(no output)");
});

Deno.test("llama shell: a signal fails with the exit status a shell reports for it", () => {
  const result = shellExecution(exited("partial\n", null, "SIGKILL"), 120_000);
  assertEquals([result.status, result.modelText], ["failed", "Exit code 137\npartial"]);
  assertEquals([result.rawOutput.exitCode, result.rawOutput.signal], [null, "SIGKILL"]);
});

Deno.test("llama shell: a failure whose output was cut says so after the output", () => {
  const result = shellExecution(
    exited("start\n", 1, null, { truncated: true, omittedBytes: 10 }),
    120_000,
  );
  assertEquals(
    result.modelText,
    "Exit code 1\nstart\n[output truncated: 10 more bytes not shown]",
  );
});

Deno.test("llama shell: in a client terminal a non-zero exit shows the terminal; a timeout adds why it stopped", () => {
  const failedExit = shellExecution(exited("broke\n", 2, null, { terminalId: "t-1" }), 120_000);
  assertEquals(failedExit.status, "failed");
  assertEquals(failedExit.content, [{ type: "terminal", terminalId: "t-1" }]);
  assertEquals(failedExit.modelText, "Exit code 2\nbroke");
  const timedOut = shellExecution({
    kind: "timed_out",
    output: "begun\n",
    truncated: false,
    durationMs: 1000,
    terminalId: "t-2",
  }, 1000);
  const why = "Exit code 143\nbegun\nCommand timed out after 1s";
  assertEquals(timedOut.modelText, why);
  assertEquals(timedOut.content, [{ type: "terminal", terminalId: "t-2" }, text(why)]);
  assertEquals([timedOut.interrupted, timedOut.rawOutput.interrupted], [false, true]);
});

Deno.test("llama shell: a cancel is an interrupted failure that says the user cancelled it", () => {
  const result = shellExecution(
    { kind: "cancelled", output: "", truncated: false, durationMs: 5 },
    120_000,
  );
  assertEquals([result.status, result.interrupted], ["failed", true]);
  assertEquals(result.modelText, "Command was cancelled by the user");
});

Deno.test("llama shell: a command that could not start fails with why", () => {
  const result = shellExecution(
    { kind: "failed", message: "Cannot run the command: no /bin/sh", durationMs: 1 },
    120_000,
  );
  assertEquals([result.status, result.modelText], [
    "failed",
    "Cannot run the command: no /bin/sh",
  ]);
});
