/**
 * The load-time check that a schema uses only what `JsonSchemaValidator` honours, so that a schema
 * upgrade cannot silently weaken the validation: keywords, types, formats and `#/$defs/...`
 * references.
 */
import { isObject } from "./json_object.ts";
import { escapePointer } from "./json_schema_issue.ts";
import { INTEGER_RANGES, type SchemaDefs } from "./json_schema_validator.ts";

const SUPPORTED_KEYWORDS = new Set([
  "$schema",
  // Only names where the schema is published; every reference is a fragment of this document.
  "$id",
  "$defs",
  "$ref",
  "title",
  "description",
  "default",
  "type",
  "const",
  "enum",
  "format",
  "minimum",
  "maximum",
  "minLength",
  "properties",
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "discriminator",
]);

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean", "null"]);

const OTHER_FORMATS = new Set(["double", "float", "uri"]);

/** Keywords, types, formats and references in `schema` the validator would not honour. */
export function unsupportedKeywords(schema: unknown, defs: SchemaDefs): string[] {
  const problems: string[] = [];
  checkKeywords(schema, "", defs, problems);
  return problems;
}

function checkKeywords(
  schema: unknown,
  pointer: string,
  defs: SchemaDefs,
  problems: string[],
): void {
  if (typeof schema === "boolean") return;
  if (!isObject(schema)) {
    problems.push(`a schema that is not an object at ${pointer}`);
    return;
  }
  for (const [keyword, value] of Object.entries(schema)) {
    const here = `${pointer}/${escapePointer(keyword)}`;
    if (keyword.startsWith("x-")) continue;
    if (!SUPPORTED_KEYWORDS.has(keyword)) problems.push(`keyword "${keyword}" at ${here}`);
    if (
      keyword === "$ref" && !(typeof value === "string" && value.startsWith("#/$defs/") &&
        Object.hasOwn(defs, value.slice("#/$defs/".length)))
    ) {
      problems.push(`reference ${JSON.stringify(value)} at ${here}`);
    }
    if (
      keyword === "format" && !(typeof value === "string" &&
        (Object.hasOwn(INTEGER_RANGES, value) || OTHER_FORMATS.has(value)))
    ) {
      problems.push(`format ${JSON.stringify(value)} at ${here}`);
    }
    if (keyword === "type") {
      for (const type of [value].flat()) {
        if (!TYPES.has(String(type))) problems.push(`type ${JSON.stringify(type)} at ${here}`);
      }
    }
    if (keyword === "properties" || keyword === "$defs") {
      if (!isObject(value)) continue;
      for (const [name, sub] of Object.entries(value)) {
        checkKeywords(sub, `${here}/${escapePointer(name)}`, defs, problems);
      }
    } else if (keyword === "allOf" || keyword === "anyOf" || keyword === "oneOf") {
      if (!Array.isArray(value)) continue;
      value.forEach((sub, index) => checkKeywords(sub, `${here}/${index}`, defs, problems));
    } else if (
      keyword === "items" || keyword === "not" || keyword === "additionalProperties" ||
      keyword === "unevaluatedProperties"
    ) {
      checkKeywords(value, here, defs, problems);
    }
  }
}
