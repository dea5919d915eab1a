import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";
import {
  agentMessageDefs,
  validateAgentMessage,
  validateAgentNotification,
  validateAgentRequest,
  validateAgentResponse,
  validateDef,
  validateErrorObject,
} from "../helpers/acp_schema.ts";

import { type Sample, SESSION, update, VALID } from "./acp_schema_samples.ts";
import { INVALID, STRICT_ONLY } from "./acp_schema_invalid_samples.ts";
function ours(sample: Sample, strict = true): string[] {
  const options = { strict };
  switch (sample.kind) {
    case "response":
      return validateAgentResponse(sample.method, sample.value, options);
    case "request":
      return validateAgentRequest(sample.method, sample.value, options);
    case "notification":
      return validateAgentNotification(sample.method, sample.value, options);
    case "error":
      return validateErrorObject(sample.value, options);
    default:
      return sample.kind satisfies never;
  }
}

for (const sample of VALID) {
  Deno.test(`valid: ${sample.name}`, () => {
    assertEquals(ours(sample), []);
  });
}

for (const sample of INVALID) {
  Deno.test(`invalid: ${sample.name}`, () => {
    const problems = ours(sample);
    assert(
      problems.some((problem) => problem.includes(sample.expect)),
      `Expected a problem including ${JSON.stringify(sample.expect)}, got ${
        JSON.stringify(problems, null, 2)
      }`,
    );
  });
}

/** What the SDK's zod schema for the sample's definition makes of it. */
function sdkVerdict(sdk: object, sample: Sample): string {
  const defs = agentMessageDefs();
  const name = sample.kind === "error" ? "Error" : {
    response: defs.responses,
    request: defs.requests,
    notification: defs.notifications,
  }[sample.kind].get(sample.method);
  const schema = Reflect.get(sdk, `z${name}`);
  if (schema === undefined) return `has no zod schema "z${name}"`;
  return schema.safeParse(sample.value).success ? "accepts it" : "rejects it";
}

// The one place that depends on the SDK's internals: its own (receiving-side) zod schemas, what
// acpx and editors parse with, imported from an internal module (not a package export) as a second
// opinion on the samples above. An SDK upgrade that moves or renames them fails this test alone.
Deno.test("SDK second opinion: its internal zod schemas (zod.gen.js) agree on the samples", async () => {
  const sdk = await import(
    "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js"
  );
  const disagreements: string[] = [];
  for (const sample of VALID) {
    const verdict = sdkVerdict(sdk, sample);
    if (verdict !== "accepts it") disagreements.push(`valid: ${sample.name}: the SDK ${verdict}`);
  }
  for (const sample of INVALID) {
    const expected = sample.sdk === "tolerates" ? "accepts it" : "rejects it";
    const verdict = sdkVerdict(sdk, sample);
    if (verdict !== expected) {
      disagreements.push(`invalid: ${sample.name}: the SDK ${verdict}; expected: ${expected}`);
    }
  }
  assertEquals(disagreements, []);
});

for (const sample of STRICT_ONLY) {
  Deno.test(`strict only: ${sample.name}`, () => {
    assertEquals(ours(sample), [sample.expect]);
    assertEquals(ours(sample, false), []);
  });
}

Deno.test("method tables come from the schema's x-method annotations", () => {
  const defs = agentMessageDefs();
  assertEquals(defs.responses.get("session/prompt"), "PromptResponse");
  assertEquals(defs.responses.get("session/set_config_option"), "SetSessionConfigOptionResponse");
  assertEquals(defs.requests.get("session/request_permission"), "RequestPermissionRequest");
  assertEquals(defs.requests.get("terminal/wait_for_exit"), "WaitForTerminalExitRequest");
  assertEquals(defs.notifications.get("session/update"), "SessionNotification");
  assertEquals(defs.responses.has("session/update"), false);
});

Deno.test("$/cancel_request, a protocol-level notification of v1 either side may send, is valid from the agent", () => {
  assertEquals(
    agentMessageDefs().notifications.get("$/cancel_request"),
    "CancelRequestNotification",
  );
  const cancel = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 0 } };
  assertEquals(validateAgentMessage(cancel), []);
  assertEquals(validateAgentMessage({ ...cancel, params: {} }), [
    'Missing required property "requestId" at /params',
  ]);
});

Deno.test("unknown methods are reported; _-prefixed extension methods carry anything", () => {
  assertEquals(validateAgentRequest("_llama-agent/anything", { any: ["thing"] }), []);
  assertEquals(validateAgentResponse("_llama-agent/anything", 42), []);
  assertStringIncludes(
    validateAgentRequest("session/prompt", {}).join("\n"),
    'Unknown agent request method "session/prompt" (expected one of "fs/write_text_file"',
  );
  assertStringIncludes(
    validateAgentNotification("session/cancel", {}).join("\n"),
    'Unknown agent notification method "session/cancel"',
  );
});

Deno.test("validateDef validates one definition by name", () => {
  assertEquals(validateDef("ToolCallLocation", { path: "/a", line: 0 }), []);
  assertEquals(validateDef("ToolCallLocation", { path: "/a", line: 2 ** 32 }), [
    "Expected a uint32 (0 to 4294967295), got 4294967296 at /line",
  ]);
});

Deno.test("whole messages: the envelope, then params or result by method", () => {
  const prompts = new Map<unknown, string>([[7, "session/prompt"]]);
  const methodOf = (id: unknown) => prompts.get(id);
  assertEquals(
    validateAgentMessage({ jsonrpc: "2.0", id: 7, result: { stopReason: "cancelled" } }, methodOf),
    [],
  );
  assertEquals(
    validateAgentMessage({ jsonrpc: "2.0", id: 7, result: { stopReason: "finished" } }, methodOf),
    [
      'Expected one of "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled", ' +
      'got "finished" at /result/stopReason',
    ],
  );
  // Without the request's method only the envelope is checked.
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", id: 8, result: { anything: 1 } }), []);
  assertEquals(
    validateAgentMessage({
      jsonrpc: "2.0",
      method: "session/update",
      params: update({ sessionUpdate: "tool_call", title: "x" }),
    }),
    ['Missing required property "toolCallId" at /params/update'],
  );
  assertEquals(
    validateAgentMessage({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    }),
    [],
  );
  assertEquals(
    validateAgentMessage({
      jsonrpc: "2.0",
      id: 3,
      method: "fs/read_text_file",
      params: { sessionId: SESSION, path: "/a" },
    }),
    [],
  );
});

Deno.test("whole messages: envelope problems", () => {
  assertEquals(validateAgentMessage([1]), [
    "Expected a JSON-RPC message object, got array at (root)",
  ]);
  assertEquals(validateAgentMessage({ id: 1, result: {} }), [
    'Expected "2.0", got undefined at /jsonrpc',
  ]);
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", id: 1, result: {}, error: {} }), [
    'Expected exactly one of "result" and "error" in a response at (root)',
  ]);
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", id: 1 }), [
    'Expected exactly one of "result" and "error" in a response at (root)',
  ]);
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", id: { a: 1 }, result: {} }), [
    "Expected null or integer or string, got object at /id",
  ]);
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", id: 1.5, result: {} }), [
    "Expected null or integer or string, got number at /id",
  ]);
  assertEquals(
    validateAgentMessage({ jsonrpc: "2.0", method: "session/update", params: {}, extra: true }),
    [
      'Unexpected member "extra" in a JSON-RPC message at /extra',
      'Missing required property "sessionId" at /params',
      'Missing required property "update" at /params',
    ],
  );
  assertEquals(validateAgentMessage({ jsonrpc: "2.0", result: {} }), [
    'Expected "method" (request or notification) or "id" (response) at (root)',
  ]);
});
