import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { compileMatcher, matches } from "../../src/hooks/matching/matcher.ts";
import { toolMatcherProblem } from "../../src/hooks/lint/tool_matcher_lint.ts";
import { compatProfile } from "../../src/profile/compat_profile.ts";

const LLAMA = compatProfile("llama");
const CLAUDE = compatProfile("claude");
const message = (source: string | undefined, profile = LLAMA) =>
  toolMatcherProblem(source, profile)?.message;
const fixed = (source: string, profile = LLAMA) => toolMatcherProblem(source, profile)?.fixed;

const LLAMA_TOOLS = 'its tools are "shell", "fs_read", "fs_write", "fs_edit", "fs_glob", ' +
  '"fs_grep" and "mcp__<server>__<tool>"';

Deno.test("in profile llama, a Claude Code matcher is told to keep its names and add ours", () => {
  assertEquals(
    message("Bash"),
    'Matcher "Bash" never matches a llama-agent tool: "Bash" is Claude Code\'s name for ' +
      '"shell"; use "Bash|shell" to match in both Claude Code and llama-agent ("hooks lint ' +
      "--fix\" does this), or run llama-agent with --compat claude, which offers Claude Code's " +
      "tool names",
  );
  assertStringIncludes(
    message("Edit|Write") ?? "",
    '"Edit" and "Write" are Claude Code\'s names for "fs_edit" and "fs_write"; use ' +
      '"Edit|Write|fs_edit|fs_write"',
  );
  assertEquals(
    message("WebFetch"),
    'Matcher "WebFetch" never matches a llama-agent tool: llama-agent has no "WebFetch" tool; ' +
      LLAMA_TOOLS,
  );
  assertStringIncludes(
    message("Bash|WebSearch") ?? "",
    'use "Bash|WebSearch|shell" to match in both Claude Code and llama-agent',
  );
  assertStringIncludes(message("Bash|WebSearch") ?? "", 'llama-agent has no "WebSearch" tool');
});

Deno.test("the fixed matcher keeps every name written and adds ours, in the user's separator", () => {
  const cases: [string, string, string[]][] = [
    ["Bash", "Bash|shell", ["shell"]],
    ["Edit|Write", "Edit|Write|fs_edit|fs_write", ["fs_edit", "fs_write"]],
    ["Edit|MultiEdit|Write", "Edit|MultiEdit|Write|fs_edit|fs_write", ["fs_edit", "fs_write"]],
    ["Read", "Read|fs_read", ["fs_read"]],
    ["Glob", "Glob|fs_glob", ["fs_glob"]],
    ["Grep", "Grep|fs_grep", ["fs_grep"]],
    ["Read, Bash", "Read, Bash, fs_read, shell", ["fs_read", "shell"]],
    ["shell|Edit", "shell|Edit|fs_edit", ["fs_edit"]],
  ];
  for (const [source, expected, ours] of cases) {
    assertEquals(fixed(source), expected, source);
    const compiled = compileMatcher(expected);
    assert(compiled.ok && compiled.matcher.kind === "list", expected);
    // Each name written still matches, so Claude Code runs the hook as before; ours now do too.
    const written = source.split(/[|,]/).map((n) => n.trim());
    for (const name of [...written, ...ours]) {
      assert(matches(compiled.matcher, name), `${expected} matches ${name}`);
    }
    assertEquals(toolMatcherProblem(expected, LLAMA), undefined, expected);
  }
  for (const unfixable of ["WebFetch", "^Bash$", "|", "Shell"]) {
    assertEquals(fixed(unfixable), undefined, unfixable);
  }
});

Deno.test("half-dead list matchers still run, and only missing equivalents are worth a word", () => {
  const partly = toolMatcherProblem("shell|Edit", LLAMA);
  assertEquals(partly?.neverMatches, false);
  assertEquals(
    partly?.message,
    '"Edit" in matcher "shell|Edit" never matches a llama-agent tool: "Edit" is Claude Code\'s ' +
      'name for "fs_edit"; use "shell|Edit|fs_edit" to match in both Claude Code and ' +
      'llama-agent ("hooks lint --fix" does this)',
  );
  // Names Claude Code needs in a shared file, beside their llama-agent equivalent: no word.
  for (const fine of ["shell|Bash", "terminal", "fs_write|Write|WebFetch", "read_file"]) {
    assertEquals(toolMatcherProblem(fine, LLAMA), undefined, fine);
  }
  for (const fine of [undefined, "", "*", "mcp__sah__create_issue", "shell,fs_read"]) {
    assertEquals(toolMatcherProblem(fine, LLAMA), undefined, String(fine));
  }
});

Deno.test("typos, empty lists and server-only MCP names", () => {
  assertEquals(
    message("Shell"),
    'Matcher "Shell" never matches a llama-agent tool: did you mean "shell"? ' +
      "(matchers are case-sensitive)",
  );
  assertEquals(
    message("|"),
    'Matcher "|" names no tool, so its hooks never run: name the tools, or use "*" for every tool',
  );
  assertStringIncludes(
    message("shell|frobnicate") ?? "",
    '"frobnicate" in matcher "shell|frobnicate" never matches a llama-agent tool: ' +
      'llama-agent has no "frobnicate" tool',
  );
  assertStringIncludes(message("mcp__github") ?? "", 'use "mcp__github__.*" for every tool');
  assertStringIncludes(message("bash", CLAUDE) ?? "", 'did you mean "Bash"?');
});

Deno.test("in profile claude, Claude Code's names match and llama-agent's own never do", () => {
  for (
    const fine of ["Bash", "Edit|Write", "Read, Bash", "^Bash$", "Bash|shell", "Bash|WebFetch"]
  ) {
    assertEquals(toolMatcherProblem(fine, CLAUDE), undefined, fine);
  }
  const shell = toolMatcherProblem("shell", CLAUDE);
  assertEquals(
    shell?.message,
    'Matcher "shell" never matches a tool of --compat claude: "shell" is llama-agent\'s own ' +
      'name for "Bash"; use "shell|Bash" to match with and without --compat claude ' +
      '("hooks lint --fix" does this), or run llama-agent without --compat claude',
  );
  assertEquals(shell?.fixed, "shell|Bash");
  assertEquals(fixed("fs_edit|fs_write", CLAUDE), "fs_edit|fs_write|Edit|Write");
  assertEquals(toolMatcherProblem("^shell$", CLAUDE)?.neverMatches, true);
});

Deno.test("regex matchers are tried on the profile's tools and on MCP names from their words", () => {
  assertEquals(
    message("^Bash$"),
    'Matcher "^Bash$" never matches a llama-agent tool: it matches only Claude Code\'s "Bash"; ' +
      'make it match "shell" too ("hooks lint --fix" leaves regular expressions to you), or ' +
      "run llama-agent with --compat claude, which offers Claude Code's tool names",
  );
  assertStringIncludes(
    message("^Notebook") ?? "",
    'make it match "fs_read" too',
  );
  assertStringIncludes(message("^Notebook") ?? "", 'llama-agent has no "NotebookEdit" tool');
  assertEquals(
    message("^Foo.*"),
    `Matcher "^Foo.*" never matches a llama-agent tool: ${LLAMA_TOOLS}`,
  );
  for (
    const fine of [
      ".*",
      "^fs_",
      "fs/.*",
      "mcp__sah__.*",
      "^mcp__",
      "mcp__.*__(read|write)",
      "^mcp__(github|gitlab)__",
      ".*__create_issue$",
      "(",
    ]
  ) {
    assertEquals(toolMatcherProblem(fine, LLAMA), undefined, fine);
  }
});

Deno.test("a never-matching matcher carries a short reason for listings", () => {
  assertEquals(
    toolMatcherProblem("Bash", LLAMA)?.reason,
    'matcher "Bash" names Claude Code\'s tool; run with --compat claude or hooks lint --fix',
  );
  assertEquals(
    toolMatcherProblem("shell", CLAUDE)?.reason,
    'matcher "shell" names llama-agent\'s own tool; run without --compat claude or hooks lint --fix',
  );
  assertEquals(toolMatcherProblem("WebFetch", LLAMA)?.foreign, false);
});
