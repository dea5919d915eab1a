/** Claude Code's rule for Bash's `noOutputExpected` (silent_command.ts), as a pure function. */
import { isSilentCommand } from "../../src/agent/shell/silent_command.ts";
import { commandParts } from "../../src/agent/shell/command_parts.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("silent: every part one of Claude Code's silent commands", () => {
  for (const command of ["touch a", "mkdir -p a && cd a", "rm -f x; rmdir y", "cp a b\nmv b c"]) {
    assertEquals(isSilentCommand(command), true, command);
  }
});

Deno.test("silent: a neutral command after || is a fallback, anywhere else it counts", () => {
  assertEquals(isSilentCommand("mkdir x || true"), true);
  assertEquals(isSilentCommand("mv a b || echo 'could not move'"), true);
  assertEquals(isSilentCommand("true || mkdir x"), false);
  assertEquals(isSilentCommand("mkdir x && echo made"), false);
  assertEquals(isSilentCommand("true"), false);
});

Deno.test("not silent: output, a pipe into a printer, a background job, a subshell, an assignment", () => {
  for (
    const command of [
      "echo changed > ext.txt",
      "touch a | tee log",
      "touch a &",
      "(cd x && touch y)",
      "FOO=1 touch a",
      "",
      "   ",
    ]
  ) {
    assertEquals(isSilentCommand(command), false, JSON.stringify(command));
  }
});

Deno.test("silent: redirections before or after the command do not name it", () => {
  assertEquals(isSilentCommand("touch a 2>/dev/null"), true);
  assertEquals(isSilentCommand("2> err.log touch a"), true);
  assertEquals(isSilentCommand("rm -f x >/dev/null 2>&1"), true);
});

Deno.test("parts: separators inside quotes or escaped are words, quotes are removed", () => {
  assertEquals(commandParts(`touch 'a;b' "c && d" e\\|f`), [
    { after: null, words: ["touch", "a;b", "c && d", "e|f"] },
  ]);
  assertEquals(commandParts("a && b || c | d; e").map((part) => part.after), [
    null,
    "&&",
    "||",
    "|",
    ";",
  ]);
});
