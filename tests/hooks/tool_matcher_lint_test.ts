import { assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import { toolMatcherProblem } from "../../src/hooks/tool_matcher_lint.ts";

Deno.test("tool matchers naming Claude Code tools get the llama-agent equivalent", () => {
  assertEquals(
    toolMatcherProblem("Bash"),
    'Matcher "Bash" never matches a llama-agent tool: use "shell" (or "shell|terminal")',
  );
  assertEquals(
    toolMatcherProblem("Edit|Write"),
    'Matcher "Edit|Write" never matches a llama-agent tool: use "fs_write" ' +
      '(or "fs_write|fs/write|write_file|write_text_file")',
  );
  assertEquals(
    toolMatcherProblem("Read, Bash"),
    'Matcher "Read, Bash" never matches a llama-agent tool: use "fs_read|shell" ' +
      '(or "fs_read|fs/read|read_file|read_text_file|shell|terminal")',
  );
  assertEquals(
    toolMatcherProblem("WebFetch"),
    'Matcher "WebFetch" never matches a llama-agent tool: llama-agent has no "WebFetch" tool; ' +
      'its tools are "shell", "fs_read", "fs_write" and "mcp__<server>__<tool>"',
  );
  assertEquals(
    toolMatcherProblem("Bash|WebSearch"),
    'Matcher "Bash|WebSearch" never matches a llama-agent tool: use "shell" ' +
      '(or "shell|terminal"); llama-agent has no "WebSearch" tool',
  );
});

Deno.test("list matchers: typos, empty lists, half-dead lists and MCP names", () => {
  assertEquals(
    toolMatcherProblem("Shell"),
    'Matcher "Shell" never matches a llama-agent tool: did you mean "shell"? ' +
      "(matchers are case-sensitive)",
  );
  assertEquals(
    toolMatcherProblem("|"),
    'Matcher "|" names no tool, so its hooks never run: name the tools, or use "*" for every tool',
  );
  assertEquals(
    toolMatcherProblem("shell|Edit"),
    '"Edit" in matcher "shell|Edit" never matches a llama-agent tool: add "fs_write" ' +
      '(or "fs_write|fs/write|write_file|write_text_file")',
  );
  assertStringIncludes(
    toolMatcherProblem("shell|frobnicate") ?? "",
    '"frobnicate" in matcher "shell|frobnicate" never matches a llama-agent tool: ' +
      'llama-agent has no "frobnicate" tool',
  );
  assertStringIncludes(
    toolMatcherProblem("mcp__github") ?? "",
    'use "mcp__github__.*" for every tool of that server',
  );
  // Names Claude Code needs in a shared file, beside their llama-agent equivalent: no word.
  for (const fine of ["shell|Bash", "terminal", "fs_write|Edit|Write|WebFetch", "read_file"]) {
    assertEquals(toolMatcherProblem(fine), undefined, fine);
  }
  for (const fine of [undefined, "", "*", "mcp__sah__create_issue", "shell,fs_read"]) {
    assertEquals(toolMatcherProblem(fine), undefined, String(fine));
  }
});

Deno.test("regex matchers are tried on our tools and on MCP names built from their words", () => {
  assertEquals(
    toolMatcherProblem("^Bash$"),
    'Matcher "^Bash$" never matches a llama-agent tool: it matches only Claude Code\'s "Bash"; ' +
      'use "shell" (or "shell|terminal")',
  );
  assertStringIncludes(
    toolMatcherProblem("^Notebook") ?? "",
    'use "fs_read" (or "fs_read|fs/read|read_file|read_text_file"); ' +
      'llama-agent has no "NotebookEdit" tool',
  );
  assertEquals(
    toolMatcherProblem("^Foo.*"),
    'Matcher "^Foo.*" never matches a llama-agent tool: its tools are "shell", "fs_read", ' +
      '"fs_write" and "mcp__<server>__<tool>"',
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
    assertEquals(toolMatcherProblem(fine), undefined, fine);
  }
});
