import {
  type FunctionParamsSchema,
  toLlamaFunctions,
  toParamsSchema,
} from "../../src/model/llama/llama_functions.ts";
import { assertEquals } from "../helpers/assert.ts";

const ANY_JSON: FunctionParamsSchema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "object", additionalProperties: true },
    { type: "array", items: { type: ["string", "number", "boolean", "null"] } },
  ],
};

Deno.test("no tools: functions are off", () => {
  assertEquals(toLlamaFunctions([]), undefined);
});

Deno.test("optional properties leave the grammar and are described in words", () => {
  const functions = toLlamaFunctions([{
    name: "fs_read",
    description: "Read a file.",
    inputSchema: {
      type: "object",
      properties: {
        file_path: { type: "string", description: "The path." },
        offset: { type: "integer", minimum: 1, description: "First line." },
        limit: { type: "integer" },
      },
      required: ["file_path"],
      additionalProperties: false,
    },
  }]);
  assertEquals(functions, {
    fs_read: {
      description:
        "Read a file.\nOptional parameters:\n- offset (integer): First line.\n- limit (integer)",
      params: {
        type: "object",
        properties: { file_path: { type: "string", description: "The path." } },
        additionalProperties: true,
      },
    },
  });
});

Deno.test("required properties keep their order; closed objects stay closed", () => {
  const functions = toLlamaFunctions([{
    name: "fs_write",
    description: "Write.",
    inputSchema: {
      type: "object",
      properties: { file_path: { type: "string" }, content: { type: "string", maxLength: 9 } },
      required: ["content", "file_path"],
      additionalProperties: false,
    },
  }]);
  assertEquals(functions?.fs_write?.params, {
    type: "object",
    properties: { file_path: { type: "string" }, content: { type: "string", maxLength: 9 } },
  });
  assertEquals(Object.keys(functions?.fs_write?.params ?? {}), ["type", "properties"]);
});

Deno.test("a tool without inputs takes no params", () => {
  const functions = toLlamaFunctions([
    { name: "now", description: "Time.", inputSchema: { type: "object", properties: {} } },
  ]);
  assertEquals(functions, { now: { description: "Time." } });
});

Deno.test("the JSON schema subset: literals, unions, arrays, type lists, the rest as any", () => {
  assertEquals(toParamsSchema({ enum: ["a", 1, null] }), { enum: ["a", 1, null] });
  assertEquals(toParamsSchema({ const: true, description: "d" }), {
    const: true,
    description: "d",
  });
  assertEquals(toParamsSchema({ anyOf: [{ type: "string" }, { type: "null" }] }), {
    oneOf: [{ type: "string" }, { type: "null" }],
  });
  assertEquals(
    toParamsSchema({ type: "array", items: { type: "number" }, minItems: 1, maxItems: -2 }),
    {
      type: "array",
      items: { type: "number" },
      minItems: 1,
    },
  );
  assertEquals(toParamsSchema({ type: ["string", "null"] }), { type: ["string", "null"] });
  assertEquals(toParamsSchema({ type: "integer", minimum: 3 }), { type: "integer" });
  assertEquals(toParamsSchema({ $ref: "#/x" }), ANY_JSON);
  assertEquals(toParamsSchema({ type: ["string", "date"] }), ANY_JSON);
  assertEquals(toParamsSchema(true), ANY_JSON);
  assertEquals(toParamsSchema({ properties: { a: { type: "string" } }, required: ["a"] }), {
    type: "object",
    properties: { a: { type: "string" } },
  });
  assertEquals(toParamsSchema({ type: "object", additionalProperties: { type: "string" } }), {
    type: "object",
    properties: {},
    additionalProperties: true,
  });
});
