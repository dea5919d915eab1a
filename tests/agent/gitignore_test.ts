import { assertEquals } from "../helpers/assert.ts";
import { IgnoreRules, isIgnored, parseGitignore } from "../../src/agent/search/gitignore.ts";

const ROOT = "/p";

function ignored(text: string, path: string, isDirectory = false): boolean {
  return isIgnored(parseGitignore(text, ROOT), `${ROOT}/${path}`, isDirectory);
}

Deno.test("a name without a slash is ignored at any depth below its .gitignore", () => {
  assertEquals(ignored("*.log", "a.log"), true);
  assertEquals(ignored("*.log", "deep/dir/a.log"), true);
  assertEquals(ignored("*.log", "a.txt"), false);
  assertEquals(ignored("node_modules", "pkg/node_modules", true), true);
});

Deno.test("a leading or inner slash anchors the pattern to the .gitignore's directory", () => {
  assertEquals(ignored("/build", "build", true), true);
  assertEquals(ignored("/build", "src/build", true), false);
  assertEquals(ignored("doc/*.txt", "doc/a.txt"), true);
  assertEquals(ignored("doc/*.txt", "x/doc/a.txt"), false);
  assertEquals(ignored("doc/*.txt", "doc/sub/a.txt"), false);
});

Deno.test("a trailing slash matches directories only", () => {
  assertEquals(ignored("out/", "out", true), true);
  assertEquals(ignored("out/", "out", false), false);
});

Deno.test("the last matching rule wins, and ! re-includes", () => {
  assertEquals(ignored("*.log\n!keep.log", "keep.log"), false);
  assertEquals(ignored("*.log\n!keep.log", "other.log"), true);
  assertEquals(ignored("!keep.log\n*.log", "keep.log"), true);
});

Deno.test("** spans directories at the start, in the middle and at the end", () => {
  assertEquals(ignored("**/cache", "a/b/cache", true), true);
  assertEquals(ignored("a/**/z", "a/z"), true);
  assertEquals(ignored("a/**/z", "a/b/c/z"), true);
  assertEquals(ignored("gen/**", "gen/x/y.ts"), true);
  assertEquals(ignored("gen/**", "gen", true), false);
});

Deno.test("comments, blank lines and escapes are read as git reads them", () => {
  assertEquals(ignored("# a.txt\n\n", "# a.txt"), false);
  assertEquals(ignored("\\#hash", "#hash"), true);
  assertEquals(ignored("\\!bang", "!bang"), true);
  assertEquals(ignored("trail\\ ", "trail "), true);
  assertEquals(ignored("trail   ", "trail"), true);
  // Braces are literal in .gitignore.
  assertEquals(ignored("{a,b}", "{a,b}"), true);
  assertEquals(ignored("{a,b}", "a"), false);
});

Deno.test("a deeper .gitignore's rules win over a shallower one's, and see only below it", () => {
  const rules = IgnoreRules.none.with("*.gen", "/p").with("!keep.gen", "/p/sub");
  assertEquals(rules.ignores("/p/sub/keep.gen", false), false);
  assertEquals(rules.ignores("/p/keep.gen", false), true);
  assertEquals(rules.ignores("/p/sub/other.gen", false), true);
});
