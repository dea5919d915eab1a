import { assertEquals } from "./helpers/assert.ts";
import { displayPath } from "../src/display_path.ts";

Deno.test("a path inside the inspected directory is shown relative to it", () => {
  assertEquals(
    displayPath("/work/p/.claude/settings.json", "/work/p", "/home/u"),
    ".claude/settings.json",
  );
});

Deno.test("a path under the home directory is shown with ~", () => {
  assertEquals(
    displayPath("/home/u/.claude/settings.json", "/work/p", "/home/u"),
    "~/.claude/settings.json",
  );
});

Deno.test("a sibling directory that shares the name's prefix is not inside it", () => {
  assertEquals(displayPath("/work/project2/a.ts", "/work/p", "/home/u"), "/work/project2/a.ts");
});

Deno.test("a path outside both, or with no home known, stays absolute", () => {
  assertEquals(displayPath("/etc/hosts", "/work/p", undefined), "/etc/hosts");
  assertEquals(displayPath("/home/u/a.ts", "/work/p", undefined), "/home/u/a.ts");
});
