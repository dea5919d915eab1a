/**
 * What every profile's shell call shares (hooks.md §12.1): exit 0 completes with the profile's
 * text; anything else fails in Claude Code's words; a client terminal stands for what was printed
 * but not for why a command stopped; the `tool_response` is the profile's own.
 */
import { assertEquals } from "../helpers/assert.ts";
import { shellCallResult, type ShellResultStyle } from "../../src/agent/shell/shell_call_result.ts";

const text = (value: string) => ({
  type: "content" as const,
  content: { type: "text" as const, text: value },
});

const TOY: ShellResultStyle = {
  notStarted: (message) => ({ why: message }),
  started: (result) => ({
    completedText: `said: ${result.output}`,
    failureOutput: result.output.trim(),
    rawOutput: { printed: result.output },
  }),
};

Deno.test("shell call: exit 0 completes with the profile's text and its tool_response", () => {
  const result = shellCallResult(
    {
      kind: "exited",
      output: "hi\n",
      truncated: false,
      exitCode: 0,
      signal: null,
      durationMs: 3,
    },
    1000,
    TOY,
  );
  assertEquals(result, {
    status: "completed",
    modelText: "said: hi\n",
    content: [text("said: hi\n")],
    rawOutput: { printed: "hi\n" },
    interrupted: false,
  });
});

Deno.test("shell call: in a client terminal an exit 1 shows the terminal alone, a cancel adds why it stopped", () => {
  const terminal = { type: "terminal" as const, terminalId: "t-1" };
  const exited = shellCallResult(
    {
      kind: "exited",
      output: "broke\n",
      truncated: false,
      exitCode: 1,
      signal: null,
      durationMs: 3,
      terminalId: "t-1",
    },
    1000,
    TOY,
  );
  assertEquals([exited.status, exited.modelText, exited.interrupted], [
    "failed",
    "Exit code 1\nbroke",
    false,
  ]);
  assertEquals(exited.content, [terminal]);
  const cancelled = shellCallResult(
    { kind: "cancelled", output: "", truncated: false, durationMs: 3, terminalId: "t-1" },
    1000,
    TOY,
  );
  const why = "Command was cancelled by the user";
  assertEquals([cancelled.status, cancelled.modelText, cancelled.interrupted], [
    "failed",
    why,
    true,
  ]);
  assertEquals(cancelled.content, [terminal, text(why)]);
});

Deno.test("shell call: a command that could not start fails with why and the profile's tool_response", () => {
  const result = shellCallResult(
    { kind: "failed", message: "Cannot start a terminal", durationMs: 1, terminalId: "t-9" },
    1000,
    TOY,
  );
  assertEquals(result, {
    status: "failed",
    modelText: "Cannot start a terminal",
    content: [{ type: "terminal", terminalId: "t-9" }, text("Cannot start a terminal")],
    rawOutput: { why: "Cannot start a terminal" },
    interrupted: false,
  });
});
