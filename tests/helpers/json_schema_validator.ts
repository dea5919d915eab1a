/**
 * A small JSON-schema validator covering exactly the keywords the ACP schema uses (`$ref` to
 * `#/$defs/...`, `type` (one or a list, `integer` included), `const`, `enum`, `format` (integer
 * widths such as `uint16` and `int64` as ranges, `double`, `uri`), `minimum`, `maximum`,
 * `minLength`, `properties`, `required`, `additionalProperties`, `unevaluatedProperties`, `items`,
 * `allOf`, `anyOf`, `oneOf` (with `discriminator`) and `not`); `unsupportedKeywords`
 * (`json_schema_support.ts`) refuses a schema with any other.
 *
 * Strict mode also reports every property no schema declares at its place (the effect of
 * `unevaluatedProperties: false` everywhere except inside open maps).
 */
import { deepEqual } from "./assert.ts";
import { isObject } from "./json_object.ts";
import { escapePointer, type Issue, issue, show, typeName } from "./json_schema_issue.ts";

export type Schema = boolean | SchemaObject;
export type SchemaObject = { readonly [keyword: string]: unknown };
/** `$defs` by name, which `$ref: "#/$defs/<name>"` points into. */
export type SchemaDefs = Readonly<Record<string, Schema>>;

/** Integer formats as inclusive ranges; `json_schema_support.ts` lists the other formats. */
export const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-(2 ** 7), 2 ** 7 - 1],
  uint8: [0, 2 ** 8 - 1],
  int16: [-(2 ** 15), 2 ** 15 - 1],
  uint16: [0, 2 ** 16 - 1],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  uint: [0, Number.MAX_SAFE_INTEGER],
};

/** Keywords that give a value a shape; a schema with none of them (`rawInput`, `Error.data`,
 * `ExtResponse`) accepts anything, so strict mode does not look inside. */
const SHAPING_KEYWORDS = [
  "$ref",
  "type",
  "const",
  "enum",
  "properties",
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
];

/** A subschema (the load-time check has already refused anything else). */
function asSchema(value: unknown): Schema {
  if (typeof value === "boolean" || isObject(value)) return value;
  throw new Error(`Not a JSON schema: ${JSON.stringify(value)}`);
}

function schemaList(value: unknown): Schema[] {
  return Array.isArray(value) ? value.map(asSchema) : [];
}

/** What applying a schema to one place found. */
interface Outcome {
  /** Schema errors: these decide whether an alternative matches. */
  readonly errors: Issue[];
  /** Properties no schema declares (strict mode): reported, but never decide a match. */
  readonly unknown: Issue[];
  /** Properties some applied schema evaluated at this place ("all" for open maps). */
  evaluated: Set<string> | "all";
  /** The types the schema wanted when it refused the value's type outright (a weak candidate
   * among alternatives); empty otherwise. */
  readonly expected: string[];
}

function emptyOutcome(): Outcome {
  return { errors: [], unknown: [], evaluated: new Set(), expected: [] };
}

function merge(into: Outcome, from: Outcome): void {
  into.errors.push(...from.errors);
  into.unknown.push(...from.unknown);
  if (into.evaluated !== "all") {
    if (from.evaluated === "all") into.evaluated = "all";
    else for (const key of from.evaluated) into.evaluated.add(key);
  }
  into.expected.push(...from.expected);
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

/** The constant values an alternative stands for, when it is nothing but a constant. */
function constantsOf(schema: Schema, defs: SchemaDefs): unknown[] | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema.$ref === "string") {
    const target = defs[schema.$ref.slice("#/$defs/".length)];
    return target === undefined ? undefined : constantsOf(target, defs);
  }
  if ("const" in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  return undefined;
}

export class JsonSchemaValidator {
  constructor(private readonly defs: SchemaDefs, private readonly strict: boolean) {}

  /** The problems of `value` at `pointer`: schema errors, then (strict) undeclared properties. */
  validate(schema: Schema, value: unknown, pointer: string): Issue[] {
    const found = this.place(schema, value, pointer);
    return [...found.errors, ...found.unknown];
  }

  /** Validates a value in its own place: its schema, then (strict) its undeclared properties. */
  place(schema: Schema, value: unknown, pointer: string): Outcome {
    const outcome = this.apply(schema, value, pointer);
    const refused = outcome.expected.length > 0;
    if (this.strict && !refused && isObject(value) && outcome.evaluated !== "all") {
      for (const key of Object.keys(value)) {
        if (outcome.evaluated.has(key)) continue;
        outcome.unknown.push(issue(
          `${pointer}/${escapePointer(key)}`,
          `Unknown property "${key}" (custom data belongs in "_meta")`,
        ));
      }
    }
    return outcome;
  }

  /** Applies every keyword of `schema` to `value` at one place. */
  apply(schema: Schema, value: unknown, pointer: string): Outcome {
    const outcome = emptyOutcome();
    if (schema === true) {
      outcome.evaluated = "all";
      return outcome;
    }
    if (schema === false) {
      outcome.errors.push(issue(pointer, "No value is allowed here"));
      return outcome;
    }
    if (!SHAPING_KEYWORDS.some((keyword) => keyword in schema)) {
      outcome.evaluated = "all";
      return outcome;
    }
    if (typeof schema.$ref === "string") {
      const target = this.defs[schema.$ref.slice("#/$defs/".length)];
      if (target !== undefined) merge(outcome, this.apply(target, value, pointer));
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type.map(String) : [String(schema.type)];
      if (!types.some((type) => hasType(type, value))) {
        outcome.errors.push(
          issue(pointer, `Expected ${types.join(" or ")}, got ${typeName(value)}`),
        );
        outcome.expected.push(...types);
        return outcome;
      }
    }
    if ("const" in schema && !deepEqual(value, schema.const)) {
      outcome.errors.push(issue(pointer, `Expected ${show(schema.const)}, got ${show(value)}`));
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
      outcome.errors.push(issue(
        pointer,
        `Expected one of ${schema.enum.map(show).join(", ")}, got ${show(value)}`,
      ));
    }
    if (typeof value === "number") this.numeric(schema, value, pointer, outcome);
    if (typeof value === "string") this.text(schema, value, pointer, outcome);
    if (isObject(value)) this.object(schema, value, pointer, outcome);
    if (Array.isArray(value) && schema.items !== undefined) {
      const items = asSchema(schema.items);
      value.forEach((item, index) => {
        const found = this.place(items, item, `${pointer}/${index}`);
        outcome.errors.push(...found.errors);
        outcome.unknown.push(...found.unknown);
      });
    }
    for (const sub of schemaList(schema.allOf)) merge(outcome, this.apply(sub, value, pointer));
    if (Array.isArray(schema.anyOf)) {
      merge(outcome, this.alternatives(schemaList(schema.anyOf), value, pointer, "anyOf"));
    }
    if (Array.isArray(schema.oneOf)) {
      const discriminator = isObject(schema.discriminator)
        ? schema.discriminator.propertyName
        : undefined;
      merge(
        outcome,
        typeof discriminator === "string" && isObject(value)
          ? this.discriminated(schemaList(schema.oneOf), discriminator, value, pointer)
          : this.alternatives(schemaList(schema.oneOf), value, pointer, "oneOf"),
      );
    }
    if (schema.not !== undefined) {
      const negated = this.apply(asSchema(schema.not), value, pointer);
      if (negated.errors.length === 0) {
        outcome.errors.push(issue(pointer, `Value must not match ${show(schema.not)}`));
      }
    }
    if (schema.unevaluatedProperties !== undefined && isObject(value)) {
      this.unevaluated(asSchema(schema.unevaluatedProperties), value, pointer, outcome);
    }
    return outcome;
  }

  private numeric(schema: SchemaObject, value: number, pointer: string, outcome: Outcome): void {
    const range = typeof schema.format === "string" ? INTEGER_RANGES[schema.format] : undefined;
    if (range !== undefined && Number.isInteger(value) && (value < range[0] || value > range[1])) {
      outcome.errors.push(issue(
        pointer,
        `Expected a ${String(schema.format)} (${range[0]} to ${range[1]}), got ${value}`,
      ));
      return; // said all there is to say about the range
    }
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      outcome.errors.push(issue(pointer, `Expected at least ${schema.minimum}, got ${value}`));
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      outcome.errors.push(issue(pointer, `Expected at most ${schema.maximum}, got ${value}`));
    }
  }

  private text(schema: SchemaObject, value: string, pointer: string, outcome: Outcome): void {
    if (typeof schema.minLength === "number" && [...value].length < schema.minLength) {
      outcome.errors.push(issue(
        pointer,
        `Expected at least ${schema.minLength} characters, got ${show(value)}`,
      ));
    }
    if (schema.format === "uri" && !URL.canParse(value)) {
      outcome.errors.push(issue(pointer, `Expected a URI, got ${show(value)}`));
    }
  }

  private object(
    schema: SchemaObject,
    value: Readonly<Record<string, unknown>>,
    pointer: string,
    outcome: Outcome,
  ): void {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const evaluated = outcome.evaluated === "all" ? undefined : outcome.evaluated;
    for (const [key, sub] of Object.entries(properties)) {
      if (!Object.hasOwn(value, key)) continue;
      evaluated?.add(key);
      const found = this.place(asSchema(sub), value[key], `${pointer}/${escapePointer(key)}`);
      outcome.errors.push(...found.errors);
      outcome.unknown.push(...found.unknown);
    }
    if (Array.isArray(schema.required)) {
      for (const key of schema.required.map(String)) {
        if (!Object.hasOwn(value, key)) {
          outcome.errors.push(issue(pointer, `Missing required property "${key}"`, 1));
        }
      }
    }
    if (schema.additionalProperties !== undefined) {
      const extra = Object.keys(value).filter((key) => !Object.hasOwn(properties, key));
      this.rest(asSchema(schema.additionalProperties), extra, value, pointer, outcome);
    }
  }

  /** Applies `additionalProperties`/`unevaluatedProperties` to the given keys. */
  private rest(
    schema: Schema,
    keys: readonly string[],
    value: Readonly<Record<string, unknown>>,
    pointer: string,
    outcome: Outcome,
  ): void {
    if (schema === true) {
      outcome.evaluated = "all";
      return;
    }
    for (const key of keys) {
      if (outcome.evaluated !== "all") outcome.evaluated.add(key);
      const here = `${pointer}/${escapePointer(key)}`;
      if (schema === false) {
        outcome.errors.push(issue(here, `Property "${key}" is not allowed`));
        continue;
      }
      const found = this.place(schema, value[key], here);
      outcome.errors.push(...found.errors);
      outcome.unknown.push(...found.unknown);
    }
  }

  private unevaluated(
    schema: Schema,
    value: Readonly<Record<string, unknown>>,
    pointer: string,
    outcome: Outcome,
  ): void {
    const seen = outcome.evaluated;
    if (seen === "all") return;
    this.rest(schema, Object.keys(value).filter((key) => !seen.has(key)), value, pointer, outcome);
  }

  /** `oneOf` with a discriminator: the property's value picks the one alternative that applies. */
  private discriminated(
    branches: readonly Schema[],
    property: string,
    value: Readonly<Record<string, unknown>>,
    pointer: string,
  ): Outcome {
    const tag = value[property];
    const tagOf = (branch: Schema): unknown =>
      isObject(branch) && isObject(branch.properties) && isObject(branch.properties[property])
        ? branch.properties[property].const
        : undefined;
    const chosen = branches.find((branch) => tag !== undefined && deepEqual(tagOf(branch), tag));
    if (chosen !== undefined) return this.apply(chosen, value, pointer);
    const outcome = emptyOutcome();
    outcome.evaluated = "all"; // the shape is unknown: no point listing its properties
    const known = branches.map(tagOf).map(show).join(", ");
    if (tag === undefined) {
      outcome.errors.push(
        issue(pointer, `Missing required property "${property}" (one of ${known})`, 1),
      );
    } else {
      outcome.errors.push(issue(
        `${pointer}/${escapePointer(property)}`,
        `Unknown ${property} ${show(tag)} (expected one of ${known})`,
      ));
    }
    return outcome;
  }

  /** `anyOf` / `oneOf`: the matching alternatives, or the closest one's errors. */
  private alternatives(
    branches: readonly Schema[],
    value: unknown,
    pointer: string,
    keyword: "anyOf" | "oneOf",
  ): Outcome {
    const outcomes = branches.map((branch) => this.apply(branch, value, pointer));
    const matching = outcomes.filter((found) => found.errors.length === 0);
    if (matching.length > 0) {
      const outcome = emptyOutcome();
      if (keyword === "oneOf" && matching.length > 1) {
        outcome.errors.push(issue(
          pointer,
          `Expected exactly one alternative of "oneOf" to match, ${matching.length} did`,
        ));
      }
      // Annotations from every match; unknown properties from the match that explains most.
      for (const found of matching) merge(outcome, { ...found, unknown: [] });
      const best = matching.reduce((a, b) => (b.unknown.length < a.unknown.length ? b : a));
      outcome.unknown.push(...best.unknown);
      return outcome;
    }
    const constants = branches.map((branch) => constantsOf(branch, this.defs));
    if (constants.every((values) => values !== undefined)) {
      const options = constants.flat().map(show).join(", ");
      const outcome = emptyOutcome();
      outcome.errors.push(issue(pointer, `Expected one of ${options}, got ${show(value)}`));
      return outcome;
    }
    const plausible = outcomes.filter((found) => found.expected.length === 0);
    if (plausible.length === 0) {
      const outcome = emptyOutcome();
      outcome.expected.push(...new Set(outcomes.flatMap((found) => found.expected)));
      outcome.errors.push(
        issue(pointer, `Expected ${outcome.expected.join(" or ")}, got ${typeName(value)}`),
      );
      return outcome;
    }
    const depth = (found: Outcome) => Math.max(...found.errors.map((error) => error.depth));
    const closest = plausible.reduce((a, b) =>
      depth(b) > depth(a) || (depth(b) === depth(a) && b.errors.length < a.errors.length) ? b : a
    );
    if (plausible.length === 1) return closest;
    const outcome = emptyOutcome();
    outcome.errors.push(issue(
      pointer,
      `Matches none of the ${branches.length} alternatives of "${keyword}" (the closest one's ` +
        "problems follow)",
    ));
    merge(outcome, closest);
    return outcome;
  }
}
