import { assertEquals } from "../../helpers/assert.ts";
import { shellCallLines } from "../../../src/testing/reporters/shell_call_lines.ts";

Deno.test("shellCallLines: answered or run, how it ended, and always one line", () => {
  assertEquals(
    shellCallLines([
      { command: "rm -rf victim", executed: false, exitCode: 0 },
      { command: "make test", executed: true, exitCode: 2 },
      { command: "sleep 999", executed: true, exitCode: null },
      { command: "echo a\necho b\r", executed: false, exitCode: 0 },
    ]),
    [
      "shell answered, not run: rm -rf victim → exit 0",
      "shell ran in the case's copy: make test → exit 2",
      "shell ran in the case's copy: sleep 999 → stopped",
      "shell answered, not run: echo a\\necho b\\r → exit 0",
    ],
  );
  const long = shellCallLines([{ command: "x".repeat(300), executed: false, exitCode: 0 }])[0]!;
  assertEquals(long, `shell answered, not run: ${"x".repeat(200)}… → exit 0`);
  assertEquals(shellCallLines(undefined), []);
});
