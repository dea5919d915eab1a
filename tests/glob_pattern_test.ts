import { assertEquals } from "./helpers/assert.ts";
import { hasGlobMagic, matchesGlob } from "../src/glob_pattern.ts";

const CASES: readonly [string, string, boolean][] = [
  ["*.md", "README.md", true],
  ["*.md", "docs/guide.md", false],
  ["**/*.md", "README.md", true],
  ["**/*.md", "docs/deep/guide.md", true],
  ["src/**", "src/a.ts", true],
  ["src/**", "src/x/a.ts", true],
  ["src/**", "srcx/a.ts", false],
  ["src/*", "src/x/a.ts", false],
  ["src/**/test_*.ts", "src/test_a.ts", true],
  ["src/**/test_*.ts", "src/a/b/test_a.ts", true],
  ["*.{ts,tsx}", "a.tsx", true],
  ["*.{ts,tsx}", "a.js", false],
  ["a?c", "abc", true],
  ["a?c", "a/c", false],
  ["[!a]b", "cb", true],
  ["[!a]b", "ab", false],
  ["[a-c]x", "bx", true],
  ["foo{", "foo{", true],
  ["a\\*b", "a*b", true],
  ["a\\*b", "axb", false],
  ["a.b", "axb", false],
  ["(x)", "(x)", true],
  ["src/**", "src", false],
  ["**", "a/b/c", true],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["{src,lib}/**/*.{ts,js}", "lib/x/a.js", true],
  ["{src,lib}/**/*.{ts,js}", "test/a.js", false],
  ["a{b,{c,d}}e", "ade", true],
];

Deno.test("glob patterns: *, **, ?, classes, choices and escapes over / paths", () => {
  for (const [pattern, path, expected] of CASES) {
    assertEquals(matchesGlob(pattern, path), expected, `${pattern} on ${path}`);
  }
});

Deno.test("glob patterns: case-insensitive on request only", () => {
  assertEquals(matchesGlob("*.MD", "a.md"), false);
  assertEquals(matchesGlob("*.MD", "a.md", { ignoreCase: true }), true);
});

Deno.test("a pattern without wildcards has no magic", () => {
  assertEquals(hasGlobMagic("src/a.ts"), false);
  assertEquals(hasGlobMagic("src/*.ts"), true);
  assertEquals(hasGlobMagic("{a,b}"), true);
});

Deno.test("many stars and globstars against long paths answer without backtracking", () => {
  const long = "a".repeat(254);
  assertEquals(matchesGlob("**/*a*a*a*b", long), false);
  assertEquals(matchesGlob("**/*a*a*a*b", `${long}b`), true);
  const deep = Array.from({ length: 200 }, () => "d").join("/");
  assertEquals(matchesGlob("**/**/**/**/x", deep), false);
  assertEquals(matchesGlob("**/**/**/**/x", `${deep}/x`), true);
});
