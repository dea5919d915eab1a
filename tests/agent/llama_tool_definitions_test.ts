/**
 * The llama profile's tools as offered, in both forms (full, and lean for a small context): the
 * six canonical names, the call grammar's required properties in their order (the generated test
 * models follow it), and every offered property one the input parser takes.
 */
import { llamaToolDefinitions } from "../../src/agent/tools/llama_tool_definitions.ts";
import { parseToolInput } from "../../src/agent/tools/tool_input.ts";
import { capabilityOf, compatProfile } from "../../src/profile/compat_profile.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

const FORMS = ["full", "lean"] as const;

Deno.test("the offered tools keep their names and required properties, in order, in both forms", () => {
  for (const form of FORMS) {
    assertEquals(
      llamaToolDefinitions(form).map((d) => [d.name, d.inputSchema.required]),
      [
        ["shell", ["command"]],
        ["fs_read", ["file_path"]],
        ["fs_write", ["file_path", "content"]],
        ["fs_edit", ["file_path", "old_string", "new_string"]],
        ["fs_glob", ["pattern"]],
        ["fs_grep", ["pattern"]],
      ],
      form,
    );
  }
});

Deno.test("the lean tools offer a subset of the full tools' properties, with shorter descriptions", () => {
  const full = llamaToolDefinitions("full");
  for (const [i, lean] of llamaToolDefinitions("lean").entries()) {
    const whole = full[i]!;
    const keys = (d: typeof lean) => Object.keys(d.inputSchema.properties as object);
    assert(keys(lean).every((key) => keys(whole).includes(key)), lean.name);
    assert(lean.description.length <= whole.description.length, lean.name);
  }
  const offered = (d: (typeof full)[number]) => Object.keys(d.inputSchema.properties as object);
  assertEquals(
    llamaToolDefinitions("lean").map((d) => [d.name, offered(d)]),
    [
      ["shell", ["command"]],
      ["fs_read", ["file_path", "offset", "limit"]],
      ["fs_write", ["file_path", "content"]],
      ["fs_edit", ["file_path", "old_string", "new_string"]],
      ["fs_glob", ["pattern"]],
      ["fs_grep", ["pattern", "path", "glob", "output_mode"]],
    ],
  );
});

/** A value each offered property's schema allows. */
function sample(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "string":
      return "x";
    case "integer":
      return 1;
    case "boolean":
      return true;
    default:
      throw new Error(`no sample for ${JSON.stringify(schema)}`);
  }
}

Deno.test("every property offered, in either form, is one the input parser accepts", () => {
  const profile = compatProfile("llama");
  for (const definition of FORMS.flatMap((form) => llamaToolDefinitions(form))) {
    const capability = capabilityOf(profile, definition.name);
    assert(capability !== undefined, definition.name);
    const properties = definition.inputSchema.properties as Record<string, Record<string, unknown>>;
    const input = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [name, sample(schema)]),
    );
    const parsed = parseToolInput(capability, input, definition.name);
    assert(parsed.ok, `${definition.name}: ${parsed.ok ? "" : parsed.message}`);
  }
});
