/**
 * The claude profile's tools in a small context keep Claude Code's shapes: the same names,
 * parameters, types and required parameters as the full ones; only the descriptions are shorter.
 */
import { claudeToolDefinitions } from "../../src/agent/tools/claude_tool_definitions.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

/** A schema without its descriptions: what a hook or a call's shape depends on. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([key]) => key !== "description").map((
      [key, inner],
    ) => [key, shape(inner)]),
  );
}

Deno.test("the lean claude tools are Claude Code's tools: names and parameters as in full", () => {
  const full = claudeToolDefinitions("full");
  const lean = claudeToolDefinitions("lean");
  assertEquals(lean.map((tool) => tool.name), ["Bash", "Read", "Write", "Edit", "Glob", "Grep"]);
  assertEquals(lean.map((tool) => tool.name), full.map((tool) => tool.name));
  for (const [i, tool] of lean.entries()) {
    assertEquals(shape(tool.inputSchema), shape(full[i]!.inputSchema), tool.name);
    assert(tool.description.length < full[i]!.description.length, tool.name);
  }
});

Deno.test("the lean claude tools still say what a model cannot guess", () => {
  const [bash, read] = claudeToolDefinitions("lean");
  const timeout = (bash!.inputSchema.properties as Record<string, { description?: string }>)
    .timeout;
  assertEquals(timeout?.description, "Milliseconds.");
  assert(read!.description.includes("Read a file before you Write or Edit it"), read!.description);
});
