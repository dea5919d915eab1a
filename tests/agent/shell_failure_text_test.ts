/**
 * The words a shell command that did not succeed reads as, in every profile (hooks.md §12.1): the
 * exit status a shell would report, whichever way the process ended.
 */
import { assertEquals } from "../helpers/assert.ts";
import { exitStatus, shellFailureText } from "../../src/agent/shell/shell_failure_text.ts";

const exited = (exitCode: number | null, signal: string | null = null) => ({
  kind: "exited" as const,
  output: "",
  truncated: false,
  exitCode,
  signal,
  durationMs: 1,
});

Deno.test("a signal with no portable number reads as the code the platform gave (128 + its number)", () => {
  // Deno reports SIGUSR1 as exit code 138 on Linux (SIGUSR1 is 30 on macOS).
  assertEquals(shellFailureText(exited(138, "SIGUSR1"), "", 1000), "Exit code 138");
  assertEquals(exitStatus(135, "SIGBUS"), 135);
});

Deno.test("a signal that has one number everywhere reads as 128 + it, also from a client terminal", () => {
  assertEquals(exitStatus(null, "SIGKILL"), 137);
  assertEquals(exitStatus(null, "SIGFPE"), 136);
  assertEquals(exitStatus(null, "SIGILL"), 132);
  // A client terminal that names a signal we cannot number, without a code.
  assertEquals(exitStatus(null, "SIGUSR1"), 128);
});

Deno.test("a client terminal that gives no exit status at all is a failure, read as exit code 1", () => {
  assertEquals(shellFailureText(exited(null), "done", 1000), "Exit code 1\ndone");
});

Deno.test("exit 0 succeeds, even with only stderr printed", () => {
  assertEquals(shellFailureText(exited(0), "warning: deprecated", 1000), null);
});

Deno.test("a timeout reads as exit code 143, the output, then how long the command was given", () => {
  const timedOut = { kind: "timed_out" as const, output: "", truncated: false, durationMs: 1 };
  assertEquals(shellFailureText(timedOut, "", 1000), "Exit code 143\nCommand timed out after 1s");
  assertEquals(
    shellFailureText(timedOut, "begun", 1500),
    "Exit code 143\nbegun\nCommand timed out after 1.5s",
  );
});
