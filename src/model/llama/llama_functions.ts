/**
 * Our tool definitions as node-llama-cpp functions (no handlers: the host runs the tools).
 *
 * node-llama-cpp constrains call params with a grammar built from a subset of JSON schema, and
 * that grammar makes every listed property mandatory, in the listed order. So optional
 * properties are not listed: an object with optional properties lists its required ones and
 * allows further keys of any JSON value, which the host validates against the real schema.
 * Keywords outside the subset are dropped; a value the subset cannot describe becomes "any JSON".
 *
 * The output mirrors node-llama-cpp's `GbnfJsonSchema`, written out so that this file does not
 * import node-llama-cpp (the `llama_*` backend files do; the compiler checks the fit there).
 */
import type { ToolDefinition } from "../model.ts";

type Literal = string | number | boolean | null;

export type FunctionParamsSchema =
  | { type: BasicType | BasicType[]; description?: string }
  | { type: "string"; minLength?: number; maxLength?: number; description?: string }
  | { const: Literal; description?: string }
  | { enum: Literal[]; description?: string }
  | { oneOf: FunctionParamsSchema[]; description?: string }
  | {
    type: "object";
    properties?: Record<string, FunctionParamsSchema>;
    additionalProperties?: boolean;
    description?: string;
  }
  | {
    type: "array";
    items?: FunctionParamsSchema;
    minItems?: number;
    maxItems?: number;
    description?: string;
  };

type BasicType = "string" | "number" | "integer" | "boolean" | "null";

export type LlamaFunctions = Record<
  string,
  { description?: string; params?: FunctionParamsSchema }
>;

/** The functions for `tools`, or undefined when there are none (functions off). */
export function toLlamaFunctions(tools: readonly ToolDefinition[]): LlamaFunctions | undefined {
  if (tools.length === 0) return undefined;
  const functions: LlamaFunctions = {};
  for (const tool of tools) {
    const params = toParamsSchema(tool.inputSchema);
    const description = tool.description + optionalParamsNote(tool.inputSchema);
    const takesNothing = "type" in params && params.type === "object" &&
      Object.keys(params.properties ?? {}).length === 0 && params.additionalProperties !== true;
    functions[tool.name] = takesNothing ? { description } : { description, params };
  }
  return functions;
}

/**
 * The optional top-level parameters, described in words: they are left out of the params
 * schema (which would make them mandatory), yet the model should know it may pass them.
 */
function optionalParamsNote(schema: unknown): string {
  if (!isRecord(schema) || !isRecord(schema.properties)) return "";
  const required = Array.isArray(schema.required) ? schema.required : [];
  const notes = Object.entries(schema.properties)
    .filter(([name]) => !required.includes(name))
    .map(([name, value]) => {
      const type = isRecord(value) && typeof value.type === "string" ? ` (${value.type})` : "";
      const about = isRecord(value) && typeof value.description === "string"
        ? `: ${value.description}`
        : "";
      return `\n- ${name}${type}${about}`;
    });
  return notes.length === 0 ? "" : `\nOptional parameters:${notes.join("")}`;
}

const ANY_JSON: FunctionParamsSchema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "object", additionalProperties: true },
    { type: "array", items: { type: ["string", "number", "boolean", "null"] } },
  ],
};

const BASIC_TYPES: readonly string[] = ["string", "number", "integer", "boolean", "null"];

/** The subset schema for one JSON schema value (depth-limited against cycles). */
export function toParamsSchema(schema: unknown, depth = 0): FunctionParamsSchema {
  if (!isRecord(schema) || depth > 16) return ANY_JSON;
  const description = typeof schema.description === "string"
    ? { description: schema.description }
    : {};
  if (isLiteral(schema.const)) return { const: schema.const, ...description };
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every(isLiteral)) {
    return { enum: schema.enum, ...description };
  }
  const alternatives = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
    ? schema.oneOf
    : undefined;
  if (alternatives !== undefined && alternatives.length > 0) {
    return { oneOf: alternatives.map((item) => toParamsSchema(item, depth + 1)), ...description };
  }
  const type = schema.type;
  if (type === "object" || (type === undefined && isRecord(schema.properties))) {
    return { ...objectSchema(schema, depth), ...description };
  }
  if (type === "array") {
    return {
      type: "array",
      ...(schema.items === undefined ? {} : { items: toParamsSchema(schema.items, depth + 1) }),
      ...nonNegativeInteger("minItems", schema.minItems),
      ...nonNegativeInteger("maxItems", schema.maxItems),
      ...description,
    };
  }
  if (type === "string") {
    return {
      type: "string",
      ...nonNegativeInteger("minLength", schema.minLength),
      ...nonNegativeInteger("maxLength", schema.maxLength),
      ...description,
    };
  }
  if (isBasicType(type)) return { type, ...description };
  if (Array.isArray(type) && type.length > 0 && type.every(isBasicType)) {
    return { type, ...description };
  }
  return ANY_JSON;
}

function objectSchema(schema: Record<string, unknown>, depth: number): FunctionParamsSchema {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
  const listed: Record<string, FunctionParamsSchema> = {};
  for (const [name, value] of Object.entries(properties)) {
    if (required.includes(name)) listed[name] = toParamsSchema(value, depth + 1);
  }
  const hasOptional = Object.keys(properties).some((name) => !required.includes(name));
  const open = hasOptional || schema.additionalProperties === true ||
    isRecord(schema.additionalProperties);
  return {
    type: "object",
    properties: listed,
    ...(open ? { additionalProperties: true } : {}),
  };
}

function nonNegativeInteger(key: string, value: unknown): Record<string, number> {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? { [key]: value } : {};
}

function isBasicType(value: unknown): value is BasicType {
  return typeof value === "string" && BASIC_TYPES.includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isLiteral(value: unknown): value is Literal {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
