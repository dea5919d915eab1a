import { assertEquals } from "../helpers/assert.ts";
import { scriptReferences } from "../../src/hooks/lint/script_path_lint.ts";

Deno.test("only the word that names the program or an interpreter's script is a script", () => {
  const refs = (command: string, args?: string[]) =>
    scriptReferences({ type: "command", command, args })
      .map((r) => `${r.runDirectly ? "run" : "read"} ${r.rest}`);
  assertEquals(refs('"$CLAUDE_PROJECT_DIR"/a.sh'), ["run /a.sh"]);
  assertEquals(refs("\\$CLAUDE_PROJECT_DIR/a.sh"), []);
  assertEquals(refs("'$CLAUDE_PROJECT_DIR/a.sh'"), []);
  assertEquals(refs('"$CLAUDE_PROJECT_DIR/my hooks/a.sh" x'), ["run /my hooks/a.sh"]);
  assertEquals(refs("$CLAUDE_PROJECT_DIRX/a.sh"), []);
  assertEquals(refs("$CLAUDE_PROJECT_DIR/*.sh"), []);
  assertEquals(refs("$CLAUDE_PROJECT_DIR/$(date).sh"), []);
  assertEquals(refs("cat < $CLAUDE_PROJECT_DIR/in 2> $CLAUDE_PROJECT_DIR/err"), []);
  assertEquals(refs("echo x > $CLAUDE_PROJECT_DIR/out; $CLAUDE_PROJECT_DIR/b.sh"), ["run /b.sh"]);
  assertEquals(refs("deno run -A $CLAUDE_PROJECT_DIR/x.ts"), ["read /x.ts"]);
  assertEquals(refs("/usr/bin/python3.12 $CLAUDE_PROJECT_DIR/x.py"), ["read /x.py"]);
  assertEquals(refs("npx tsc --outFile $CLAUDE_PROJECT_DIR/out.js"), []);
  assertEquals(refs("env -i A=1 $CLAUDE_PROJECT_DIR/e.sh"), ["run /e.sh"]);
  assertEquals(refs("/usr/bin/env $CLAUDE_PROJECT_DIR/e.sh"), ["run /e.sh"]);
  assertEquals(refs("uv run --quiet $CLAUDE_PROJECT_DIR/u.py"), ["read /u.py"]);
  // Inline code names no script file, whatever it starts with.
  assertEquals(refs('python3 -c "$CLAUDE_PROJECT_DIR/not_a_file"'), []);
  // A shell's one-word command line is a program the shell runs.
  assertEquals(refs('bash -c "$CLAUDE_PROJECT_DIR/c.sh"'), ["run /c.sh"]);
  assertEquals(refs('sh -c "$CLAUDE_PROJECT_DIR/c.sh --fast"'), []);
  assertEquals(refs('bash -lc "$CLAUDE_PROJECT_DIR/c.sh --fast"'), []);
  assertEquals(refs('bash -ec "$CLAUDE_PROJECT_DIR/c.sh"'), ["run /c.sh"]);
  assertEquals(refs("# $CLAUDE_PROJECT_DIR/c.sh"), []);
  assertEquals(refs("$CLAUDE_PROJECT_DIR/a.sh | $CLAUDE_PROJECT_DIR/a.sh"), ["run /a.sh"]);
  assertEquals(refs("bash", ["$CLAUDE_PROJECT_DIR/x.sh", "$CLAUDE_PROJECT_DIR/y"]), [
    "read /x.sh",
  ]);
  assertEquals(refs('"$CLAUDE_PROJECT_DIR/unterminated'), ["run /unterminated"]);
});
