import { assert, assertEquals } from "../helpers/assert.ts";
import { compileMatcher, type Matcher, matches } from "../../src/hooks/matching/matcher.ts";

function compiled(source: string | undefined): Matcher {
  const result = compileMatcher(source);
  if (!result.ok) throw new Error(`Expected "${source}" to compile: ${result.reason}`);
  return result.matcher;
}

function accepts(source: string | undefined, value: string): boolean {
  return matches(compiled(source), value);
}

Deno.test('an omitted, empty or "*" matcher matches every value', () => {
  for (const source of [undefined, "", "*"]) {
    assertEquals(compiled(source), { kind: "all" });
    assert(accepts(source, "shell"));
    assert(accepts(source, "mcp__sah__search"));
    assert(accepts(source, ""));
  }
});

Deno.test('a plain name matches only that exact name: "Bash" does not match "Bash2"', () => {
  assertEquals(compiled("Bash"), { kind: "list", names: ["Bash"] });
  assert(accepts("Bash", "Bash"));
  assert(!accepts("Bash", "Bash2"));
  assert(!accepts("Bash", "MyBash"));
});

Deno.test('a list name is never a substring match: "fs_read" does not match "read_file"', () => {
  assert(!accepts("fs_read", "read_file"));
  assert(!accepts("read", "read_file"));
  assert(accepts("fs_read", "fs_read"));
});

Deno.test('"shell|terminal" is a list of exact names, not a regex', () => {
  assertEquals(compiled("shell|terminal"), { kind: "list", names: ["shell", "terminal"] });
  assert(accepts("shell|terminal", "shell"));
  assert(accepts("shell|terminal", "terminal"));
  assert(!accepts("shell|terminal", "shell2"));
  assert(!accepts("shell|terminal", "my_terminal"));
});

Deno.test('a comma list with spaces is trimmed: "Edit, Write" matches both names', () => {
  assertEquals(compiled("Edit, Write"), { kind: "list", names: ["Edit", "Write"] });
  assert(accepts("Edit, Write", "Edit"));
  assert(accepts("Edit, Write", "Write"));
  assert(!accepts("Edit, Write", " Write"));
  assert(!accepts("Edit, Write", "Edit, Write"));
});

Deno.test("a list made only of separators names nothing and matches nothing", () => {
  assertEquals(compiled("|"), { kind: "list", names: [] });
  assert(!accepts("|", "shell"));
  assert(!accepts(" , ", ""));
});

Deno.test('any other character makes it an unanchored regex: "^Notebook" matches "NotebookEdit"', () => {
  assertEquals(compiled("^Notebook").kind, "regex");
  assert(accepts("^Notebook", "NotebookEdit"));
  assert(accepts("^Notebook", "NotebookRead"));
  assert(!accepts("^Notebook", "MyNotebook"));
});

Deno.test('a regex is unanchored: "Edit.*" matches inside a longer name', () => {
  assert(accepts("Edit.*", "MultiEdit"));
  assert(accepts("t.x", "write_text_file"));
});

Deno.test('"mcp__sah__.*" matches every tool of server "sah" and no other server', () => {
  assert(accepts("mcp__sah__.*", "mcp__sah__search"));
  assert(accepts("mcp__sah__.*", "mcp__sah__files_read"));
  assert(!accepts("mcp__sah__.*", "mcp__github__search"));
  assert(!accepts("mcp__sah__.*", "shell"));
});

Deno.test('an invalid regex "[" does not compile and says why, with the source quoted', () => {
  const result = compileMatcher("[");
  assert(!result.ok);
  if (result.ok) return;
  assert(result.reason.startsWith(`"[" is not a valid regular expression`), result.reason);
});

Deno.test("matching is case-sensitive for lists and regexes", () => {
  assert(!accepts("bash", "Bash"));
  assert(!accepts("Shell", "shell"));
  assert(!accepts("^notebook", "NotebookEdit"));
  assert(!accepts("MCP__.*", "mcp__sah__search"));
});

Deno.test('a regex uses no flags: "^a$" does not match across lines', () => {
  assert(!accepts("^a$", "a\nb"));
});

Deno.test("a null value (an event without a matcher field) is accepted by every matcher", () => {
  assert(matches(compiled("Bash"), null));
  assert(matches(compiled("^x$"), null));
  assert(matches(compiled("|"), null));
});
