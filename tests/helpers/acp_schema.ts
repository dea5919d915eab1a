/**
 * Validates what an ACP agent sends against the JSON schema that `@agentclientprotocol/sdk` ships
 * (`schema/v1/schema.json`). The SDK validates what it receives, not what it sends, so the tests
 * check our output here.
 *
 * A small JSON-schema validator covering exactly the keywords that schema uses (a load-time check
 * refuses a schema with any other keyword, so an SDK upgrade cannot silently weaken it):
 * `$ref` to `#/$defs/...`, `type` (one or a list, `integer` included), `const`, `enum`, `format`
 * (integer widths such as `uint16` and `int64` as ranges, `double`, `uri`), `minimum`, `maximum`,
 * `minLength`, `properties`, `required`, `additionalProperties`, `unevaluatedProperties`, `items`,
 * `allOf`, `anyOf`, `oneOf` (with `discriminator`) and `not`.
 *
 * Strict mode (the default) also reports every property no schema declares at its place (the
 * effect of `unevaluatedProperties: false` everywhere except inside `_meta` and other open maps):
 * custom data belongs in `_meta`, never at the root of a spec type.
 *
 * Each problem is one readable string: what failed, then `at <JSON pointer>`, e.g.
 * `Missing required property "toolCallId" at /params/update`. An empty list means valid.
 */
import { deepEqual } from "./assert.ts";
import { REPO_ROOT } from "./run_cli.ts";

export const ACP_SCHEMA_PATH =
  `${REPO_ROOT}/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json`;

export interface ValidateOptions {
  /** Report properties that no schema declares at their place (default true). */
  readonly strict?: boolean;
}

type Schema = boolean | SchemaObject;
type SchemaObject = { readonly [keyword: string]: unknown };

const SUPPORTED_KEYWORDS = new Set([
  "$schema",
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

/** Integer formats as inclusive ranges; "double", "float" and "uri" below. */
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
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
const OTHER_FORMATS = new Set(["double", "float", "uri"]);

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

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A subschema (the load-time check has already refused anything else). */
function asSchema(value: unknown): Schema {
  if (typeof value === "boolean" || isObject(value)) return value;
  throw new Error(`Not a JSON schema: ${JSON.stringify(value)}`);
}

function schemaList(value: unknown): Schema[] {
  return Array.isArray(value) ? value.map(asSchema) : [];
}

function loadSchema(): { defs: Readonly<Record<string, Schema>> } {
  const parsed: unknown = JSON.parse(Deno.readTextFileSync(ACP_SCHEMA_PATH));
  if (!isObject(parsed) || !isObject(parsed.$defs)) {
    throw new Error(`Cannot load the ACP schema from "${ACP_SCHEMA_PATH}": no "$defs"`);
  }
  const defs: Record<string, Schema> = {};
  for (const [name, def] of Object.entries(parsed.$defs)) {
    if (typeof def !== "boolean" && !isObject(def)) {
      throw new Error(`Cannot load the ACP schema: "$defs/${name}" is not a schema`);
    }
    defs[name] = def;
  }
  const problems: string[] = [];
  checkKeywords(parsed, "", defs, problems);
  if (problems.length > 0) {
    throw new Error(
      `Cannot validate against the ACP schema "${ACP_SCHEMA_PATH}": ` +
        `the validator does not support:\n  ${problems.join("\n  ")}`,
    );
  }
  return { defs };
}

/** Lists keywords, formats and references the validator would not honour. */
function checkKeywords(
  schema: unknown,
  pointer: string,
  defs: Readonly<Record<string, Schema>>,
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

let loaded: { defs: Readonly<Record<string, Schema>> } | undefined;
function defs(): Readonly<Record<string, Schema>> {
  loaded ??= loadSchema();
  return loaded.defs;
}

function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** One problem: where, what, and how deep (to choose the closest alternative of an `anyOf`). */
interface Issue {
  readonly pointer: string;
  readonly message: string;
  readonly depth: number;
}

function issue(pointer: string, message: string, extraDepth = 0): Issue {
  const depth = pointer === "" ? 0 : pointer.split("/").length - 1;
  return { pointer, message, depth: depth + extraDepth };
}

function format(found: Issue): string {
  return `${found.message} at ${found.pointer === "" ? "(root)" : found.pointer}`;
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

function typeName(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
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

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The constant values an alternative stands for, when it is nothing but a constant. */
function constantsOf(schema: Schema): unknown[] | undefined {
  if (!isObject(schema)) return undefined;
  if (typeof schema.$ref === "string") {
    const target = defs()[schema.$ref.slice("#/$defs/".length)];
    return target === undefined ? undefined : constantsOf(target);
  }
  if ("const" in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  return undefined;
}

class Validator {
  constructor(private readonly strict: boolean) {}

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
      const target = defs()[schema.$ref.slice("#/$defs/".length)];
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
    const constants = branches.map(constantsOf);
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

/** Validates `value` against `#/$defs/<name>` of the ACP schema; pointers are relative to it. */
export function validateDef(name: string, value: unknown, options: ValidateOptions = {}): string[] {
  return issuesFor(name, value, "", options).map(format);
}

function issuesFor(
  name: string,
  value: unknown,
  pointer: string,
  options: ValidateOptions,
): Issue[] {
  const schema = defs()[name];
  if (schema === undefined) throw new Error(`Unknown ACP schema definition "${name}"`);
  const found = new Validator(options.strict ?? true).place(schema, value, pointer);
  return [...found.errors, ...found.unknown];
}

/** Method → `$defs` name, from the schema's own `x-side`/`x-method` annotations. */
function methodTable(side: "agent" | "client", suffix: string): ReadonlyMap<string, string> {
  const table = new Map<string, string>();
  for (const [name, def] of Object.entries(defs())) {
    if (!isObject(def) || def["x-side"] !== side || !name.endsWith(suffix)) continue;
    if (typeof def["x-method"] === "string") table.set(def["x-method"], name);
  }
  return table;
}

let tables:
  | {
    responses: ReadonlyMap<string, string>;
    requests: ReadonlyMap<string, string>;
    notifications: ReadonlyMap<string, string>;
  }
  | undefined;

/**
 * The `$defs` names by method for what an agent sends: responses to the client's requests
 * (`initialize` → `InitializeResponse`, ...), its requests to the client
 * (`session/request_permission` → `RequestPermissionRequest`, `fs/*`, `terminal/*`) and its
 * notifications (`session/update` → `SessionNotification`).
 */
export function agentMessageDefs(): NonNullable<typeof tables> {
  tables ??= {
    // x-side names the side that handles the method: the agent answers these...
    responses: methodTable("agent", "Response"),
    // ...and the client handles what the agent asks or tells.
    requests: methodTable("client", "Request"),
    notifications: methodTable("client", "Notification"),
  };
  return tables;
}

/** Extension methods (`_`-prefixed) carry anything (`ExtRequest`, `ExtResponse`, ...). */
function isExtension(method: string): boolean {
  return method.startsWith("_");
}

function byMethod(
  table: ReadonlyMap<string, string>,
  what: string,
  method: string,
  value: unknown,
  pointer: string,
  options: ValidateOptions,
): Issue[] {
  if (isExtension(method)) return [];
  const name = table.get(method);
  if (name === undefined) {
    const known = [...table.keys()].map((key) => `"${key}"`).join(", ");
    return [issue(pointer, `Unknown ${what} method "${method}" (expected one of ${known})`)];
  }
  return issuesFor(name, value, pointer, options);
}

/** Validates the `result` an agent sends in answer to a client request of `method`. */
export function validateAgentResponse(
  method: string,
  result: unknown,
  options: ValidateOptions = {},
): string[] {
  return byMethod(agentMessageDefs().responses, "agent response", method, result, "", options)
    .map(format);
}

/** Validates the `params` of a request the agent sends to the client. */
export function validateAgentRequest(
  method: string,
  params: unknown,
  options: ValidateOptions = {},
): string[] {
  return byMethod(agentMessageDefs().requests, "agent request", method, params, "", options)
    .map(format);
}

/** Validates the `params` of a notification the agent sends (`session/update`, ...). */
export function validateAgentNotification(
  method: string,
  params: unknown,
  options: ValidateOptions = {},
): string[] {
  return byMethod(
    agentMessageDefs().notifications,
    "agent notification",
    method,
    params,
    "",
    options,
  ).map(format);
}

/** Validates a JSON-RPC error object (`{code, message, data?}`, `Error` in the schema). */
export function validateErrorObject(error: unknown, options: ValidateOptions = {}): string[] {
  return validateDef("Error", error, options);
}

/**
 * Validates one whole message an agent sends: the JSON-RPC 2.0 envelope (`jsonrpc: "2.0"`, the
 * members of a request, notification or response and nothing else), then its params or result.
 * A response is only checked beyond its envelope when `methodOf` names the request it answers.
 * Pointers are relative to the message (`/params/update/...`).
 */
export function validateAgentMessage(
  message: unknown,
  methodOf?: (id: unknown) => string | undefined,
  options: ValidateOptions = {},
): string[] {
  if (!isObject(message)) {
    return [format(issue("", `Expected a JSON-RPC message object, got ${typeName(message)}`))];
  }
  const found: Issue[] = [];
  if (message.jsonrpc !== "2.0") {
    found.push(issue("/jsonrpc", `Expected "2.0", got ${show(message.jsonrpc)}`));
  }
  const allowed = (members: readonly string[]) => {
    for (const key of Object.keys(message)) {
      if (!members.includes(key)) {
        found.push(
          issue(`/${escapePointer(key)}`, `Unexpected member "${key}" in a JSON-RPC message`),
        );
      }
    }
  };
  const checkId = () => found.push(...issuesFor("RequestId", message.id, "/id", options));
  if ("method" in message) {
    const isRequest = "id" in message;
    allowed(isRequest ? ["jsonrpc", "id", "method", "params"] : ["jsonrpc", "method", "params"]);
    if (isRequest) checkId();
    if (typeof message.method !== "string") {
      found.push(issue("/method", `Expected string, got ${typeName(message.method)}`));
    } else {
      const table = isRequest ? agentMessageDefs().requests : agentMessageDefs().notifications;
      const what = isRequest ? "agent request" : "agent notification";
      found.push(...byMethod(table, what, message.method, message.params, "/params", options));
    }
  } else if ("id" in message) {
    checkId();
    if (("result" in message) === ("error" in message)) {
      found.push(issue("", 'Expected exactly one of "result" and "error" in a response'));
    } else if ("error" in message) {
      allowed(["jsonrpc", "id", "error"]);
      found.push(...issuesFor("Error", message.error, "/error", options));
    } else {
      allowed(["jsonrpc", "id", "result"]);
      const method = methodOf?.(message.id);
      if (method !== undefined) {
        found.push(
          ...byMethod(
            agentMessageDefs().responses,
            "agent response",
            method,
            message.result,
            "/result",
            options,
          ),
        );
      }
    }
  } else {
    found.push(issue("", 'Expected "method" (request or notification) or "id" (response)'));
  }
  return found.map(format);
}
