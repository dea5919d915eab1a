/**
 * Validates what an ACP agent sends against the JSON schema that `@agentclientprotocol/sdk` ships
 * (`schema/v1/schema.json`). The SDK validates what it receives, not what it sends, so the tests
 * check our output here, with `JsonSchemaValidator` (`json_schema_validator.ts`); loading the
 * schema refuses one with keywords the validator does not honour (`json_schema_support.ts`), so an
 * SDK upgrade cannot silently weaken it.
 *
 * Strict mode (the default) also reports every property no schema declares at its place (the
 * effect of `unevaluatedProperties: false` everywhere except inside `_meta` and other open maps):
 * custom data belongs in `_meta`, never at the root of a spec type.
 *
 * Each problem is one readable string: what failed, then `at <JSON pointer>`, e.g.
 * `Missing required property "toolCallId" at /params/update`. An empty list means valid.
 */
import { isObject } from "./json_object.ts";
import {
  escapePointer,
  formatIssue,
  type Issue,
  issue,
  show,
  typeName,
} from "./json_schema_issue.ts";
import { unsupportedKeywords } from "./json_schema_support.ts";
import { JsonSchemaValidator, type Schema, type SchemaDefs } from "./json_schema_validator.ts";
import { REPO_ROOT } from "./run_cli.ts";

export const ACP_SCHEMA_PATH =
  `${REPO_ROOT}/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json`;

export interface ValidateOptions {
  /** Report properties that no schema declares at their place (default true). */
  readonly strict?: boolean;
}

function loadSchema(): { defs: SchemaDefs } {
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
  const problems = unsupportedKeywords(parsed, defs);
  if (problems.length > 0) {
    throw new Error(
      `Cannot validate against the ACP schema "${ACP_SCHEMA_PATH}": ` +
        `the validator does not support:\n  ${problems.join("\n  ")}`,
    );
  }
  return { defs };
}

let loaded: { defs: SchemaDefs } | undefined;
function defs(): SchemaDefs {
  loaded ??= loadSchema();
  return loaded.defs;
}

/** Validates `value` against `#/$defs/<name>` of the ACP schema; pointers are relative to it. */
export function validateDef(name: string, value: unknown, options: ValidateOptions = {}): string[] {
  return issuesFor(name, value, "", options).map(formatIssue);
}

function issuesFor(
  name: string,
  value: unknown,
  pointer: string,
  options: ValidateOptions,
): Issue[] {
  const schema = defs()[name];
  if (schema === undefined) throw new Error(`Unknown ACP schema definition "${name}"`);
  return new JsonSchemaValidator(defs(), options.strict ?? true).validate(schema, value, pointer);
}

/** Method → `$defs` name, from the schema's own `x-side`/`x-method` annotations. */
function methodTable(
  side: "agent" | "client" | "protocol",
  suffix: string,
): ReadonlyMap<string, string> {
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
 * notifications (`session/update` → `SessionNotification`, `$/cancel_request` →
 * `CancelRequestNotification`).
 */
export function agentMessageDefs(): NonNullable<typeof tables> {
  tables ??= {
    // x-side names the side that handles the method: the agent answers these...
    responses: methodTable("agent", "Response"),
    // ...and the client handles what the agent asks or tells, and either side handles the
    // protocol's own `$/` notifications (`$/cancel_request` withdraws a pending request).
    requests: methodTable("client", "Request"),
    notifications: new Map([
      ...methodTable("client", "Notification"),
      ...methodTable("protocol", "Notification"),
    ]),
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
    .map(formatIssue);
}

/** Validates the `params` of a request the agent sends to the client. */
export function validateAgentRequest(
  method: string,
  params: unknown,
  options: ValidateOptions = {},
): string[] {
  return byMethod(agentMessageDefs().requests, "agent request", method, params, "", options)
    .map(formatIssue);
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
  ).map(formatIssue);
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
    return [formatIssue(issue("", `Expected a JSON-RPC message object, got ${typeName(message)}`))];
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
  return found.map(formatIssue);
}
