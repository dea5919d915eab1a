import { assertEquals } from "../helpers/assert.ts";
import {
  commandOfScript,
  reportedDirectory,
  reportingScript,
  shellQuote,
} from "../../src/agent/shell/shell_script.ts";

Deno.test("a command is one quoted word, a single quote in it closed and reopened", () => {
  assertEquals(shellQuote("echo 'a b'"), `'echo '\\''a b'\\'''`);
});

Deno.test("the reporting script evals the command, then writes pwd -P only when it succeeded", () => {
  assertEquals(
    reportingScript("cd sub # a comment", "/state/cwd-1"),
    "eval 'cd sub # a comment' && pwd -P >| '/state/cwd-1'",
  );
});

Deno.test("the command inside a reporting script is given back as it was written", async () => {
  for (const command of ["cd 'a b' && echo \"it's\"", "x=1\ncat <<'EOF'\n'q'\nEOF", "'", ""]) {
    assertEquals(commandOfScript(reportingScript(command, "/s/cwd-'1'")), command);
  }
  // Anything else is shown as it is.
  assertEquals(commandOfScript("echo plain"), "echo plain");
  // And the shell runs it as written: the quoting holds.
  const script = reportingScript(`printf '%s|' "it's" 'a b'`, "/dev/null");
  const output = await new Deno.Command("/bin/sh", { args: ["-c", script] }).output();
  assertEquals(new TextDecoder().decode(output.stdout), "it's|a b|");
});

Deno.test("a report names a directory only as pwd -P writes one: one absolute path", () => {
  assertEquals(reportedDirectory("/home/u/proj/sub\n"), "/home/u/proj/sub");
  assertEquals(reportedDirectory("/no/newline"), "/no/newline");
  assertEquals(reportedDirectory(""), undefined);
  assertEquals(reportedDirectory("relative/dir\n"), undefined);
  assertEquals(reportedDirectory("/a\n/b\n"), undefined);
});
