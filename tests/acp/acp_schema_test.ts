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

type Kind = "response" | "request" | "notification" | "error";

interface Sample {
  readonly name: string;
  readonly kind: Kind;
  readonly method: string;
  readonly value: unknown;
}

const SESSION = "sess_1";

function update(body: Record<string, unknown>): unknown {
  return { sessionId: SESSION, update: body };
}

const MODES = {
  currentModeId: "auto-approve-reads",
  availableModes: [
    { id: "always-ask", name: "Always ask", description: "Every tool call asks" },
    { id: "auto-approve-reads", name: "Auto-approve reads", description: null },
    { id: "rule-based", name: "Rule-based" },
  ],
};

const CONFIG_OPTIONS = [
  {
    id: "mode",
    name: "Permission mode",
    category: "mode",
    type: "select",
    currentValue: "auto-approve-reads",
    options: [
      { value: "always-ask", name: "Always ask" },
      { value: "auto-approve-reads", name: "Auto-approve reads", description: "fs_read runs" },
    ],
  },
  {
    id: "stop_hooks_continue",
    name: "Stop hooks continue the turn",
    type: "boolean",
    currentValue: false,
  },
];

const VALID: readonly Sample[] = [
  {
    name: "initialize",
    kind: "response",
    method: "initialize",
    value: {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
        _meta: { "llama-agent/hooks": { events: ["PreToolUse"] } },
      },
      agentInfo: { name: "llama-agent", title: "llama-agent", version: "0.1.0" },
      authMethods: [],
    },
  },
  {
    name: "session/new",
    kind: "response",
    method: "session/new",
    value: { sessionId: SESSION, modes: MODES, configOptions: CONFIG_OPTIONS },
  },
  { name: "session/load", kind: "response", method: "session/load", value: {} },
  {
    name: "session/resume",
    kind: "response",
    method: "session/resume",
    value: { modes: MODES, configOptions: null },
  },
  {
    name: "session/list",
    kind: "response",
    method: "session/list",
    value: {
      sessions: [{
        sessionId: SESSION,
        cwd: "/p",
        title: "Fix it",
        updatedAt: "2025-01-01T00:00:00Z",
      }],
      nextCursor: null,
    },
  },
  { name: "session/close", kind: "response", method: "session/close", value: {} },
  { name: "session/set_mode", kind: "response", method: "session/set_mode", value: {} },
  {
    name: "session/set_config_option",
    kind: "response",
    method: "session/set_config_option",
    value: { configOptions: CONFIG_OPTIONS },
  },
  {
    name: "session/prompt with _meta",
    kind: "response",
    method: "session/prompt",
    value: {
      stopReason: "end_turn",
      _meta: {
        hook_should_continue: true,
        hook_reason: "keep going",
        tokens: { prompt: 10, evaluated: 4, generated: 7 },
      },
    },
  },
  {
    name: "a user message chunk",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } }),
  },
  {
    name: "an agent message chunk with a messageId",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "agent_message_chunk",
      messageId: "msg_1",
      content: { type: "text", text: "Hello" },
    }),
  },
  {
    name: "a thought chunk",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } }),
  },
  {
    name: "a pending tool call",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "Read src/a.ts",
      kind: "read",
      status: "pending",
      rawInput: { path: "src/a.ts", nested: { anything: [1, "two"] } },
      locations: [{ path: "/p/src/a.ts", line: 3 }],
      _meta: { tool_name: "fs_read" },
    }),
  },
  {
    name: "a completed tool call with a diff, a terminal and text",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "completed",
      content: [
        { type: "diff", path: "/p/new.txt", oldText: null, newText: "x\n" },
        { type: "terminal", terminalId: "term_1" },
        { type: "content", content: { type: "text", text: "done" } },
      ],
      rawOutput: { exitCode: 0 },
    }),
  },
  {
    name: "a denied tool call",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_2",
      status: "failed",
      _meta: { "llama-agent/hook": { event: "PreToolUse", decision: "deny", reason: "no" } },
    }),
  },
  {
    name: "a plan",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "plan",
      entries: [{ content: "Read", priority: "high", status: "in_progress" }],
    }),
  },
  {
    name: "available commands",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "compact", description: "Compact", input: { hint: "why" } }],
    }),
  },
  {
    name: "a mode change",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "current_mode_update", currentModeId: "always-ask" }),
  },
  {
    name: "a config option change",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "config_option_update", configOptions: CONFIG_OPTIONS }),
  },
  {
    name: "a permission request",
    kind: "request",
    method: "session/request_permission",
    value: {
      sessionId: SESSION,
      toolCall: {
        toolCallId: "call_1",
        title: "Run ls",
        kind: "execute",
        rawInput: { command: "ls" },
      },
      options: [
        { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
        { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
      ],
    },
  },
  {
    name: "fs/read_text_file",
    kind: "request",
    method: "fs/read_text_file",
    value: { sessionId: SESSION, path: "/p/a.ts", line: 1, limit: 20 },
  },
  {
    name: "fs/write_text_file",
    kind: "request",
    method: "fs/write_text_file",
    value: { sessionId: SESSION, path: "/p/a.ts", content: "x" },
  },
  {
    name: "terminal/create",
    kind: "request",
    method: "terminal/create",
    value: {
      sessionId: SESSION,
      command: "sh",
      args: ["-c", "ls"],
      env: [{ name: "A", value: "1" }],
      cwd: "/p",
      outputByteLimit: 65536,
    },
  },
  ...["terminal/output", "terminal/wait_for_exit", "terminal/release", "terminal/kill"].map((
    method,
  ): Sample => ({
    name: method,
    kind: "request",
    method,
    value: { sessionId: SESSION, terminalId: "term_1" },
  })),
  {
    name: "an invalid-params error",
    kind: "error",
    method: "",
    value: { code: -32602, message: "Invalid params", data: { cwd: "must be absolute" } },
  },
  {
    name: "an unknown-session error",
    kind: "error",
    method: "",
    value: { code: -32002, message: "Session not found", data: { sessionId: "nope" } },
  },
];

/**
 * Invalid against the schema. `sdk` says what the SDK's zod schemas (what acpx and editors parse
 * with) make of it: most they reject, but where the schema marks a field
 * `x-deserialize-default-on-error` or `x-deserialize-skip-invalid-items` they quietly drop the bad
 * value, so a client would never report it: only this check does. The "SDK second opinion" test
 * checks `sdk`.
 */
const INVALID: readonly (Sample & { readonly expect: string; readonly sdk?: "tolerates" })[] = [
  {
    name: "an unknown sessionUpdate kind",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "message", content: { type: "text", text: "x" } }),
    expect: 'Unknown sessionUpdate "message" (expected one of "user_message_chunk", ',
  },
  {
    name: "a tool_call without toolCallId",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "tool_call", title: "Run", status: "pending" }),
    expect: 'Missing required property "toolCallId" at /update',
  },
  {
    name: "a tool_call without title",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "tool_call", toolCallId: "c" }),
    expect: 'Missing required property "title" at /update',
  },
  {
    name: "a tool status that does not exist",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "tool_call_update", toolCallId: "c", status: "done" }),
    sdk: "tolerates",
    expect: 'Expected one of "pending", "in_progress", "completed", "failed", got "done" ' +
      "at /update/status",
  },
  {
    name: "a text block without text",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "agent_message_chunk", content: { type: "text" } }),
    expect: 'Missing required property "text" at /update/content',
  },
  {
    name: "a diff without newText",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      content: [{ type: "diff", path: "/p/a", oldText: "a" }],
    }),
    sdk: "tolerates",
    expect: 'Missing required property "newText" at /update/content/0',
  },
  {
    name: "a session/update without sessionId",
    kind: "notification",
    method: "session/update",
    value: { update: { sessionUpdate: "plan", entries: [] } },
    expect: 'Missing required property "sessionId" at (root)',
  },
  {
    name: 'stopReason "finished"',
    kind: "response",
    method: "session/prompt",
    value: { stopReason: "finished" },
    expect: 'Expected one of "end_turn", "max_tokens", "max_turn_requests", "refusal", ' +
      '"cancelled", got "finished" at /stopReason',
  },
  {
    name: "a session/new answer without sessionId",
    kind: "response",
    method: "session/new",
    value: { modes: MODES },
    expect: 'Missing required property "sessionId" at (root)',
  },
  {
    name: "modes that are a string",
    kind: "response",
    method: "session/new",
    value: { sessionId: SESSION, modes: "always-ask" },
    sdk: "tolerates",
    expect: "Expected object or null, got string at /modes",
  },
  {
    name: "a config option of an unknown type",
    kind: "response",
    method: "session/set_config_option",
    value: { configOptions: [{ id: "x", name: "X", type: "toggle", currentValue: true }] },
    sdk: "tolerates",
    expect: 'Unknown type "toggle" (expected one of "select", "boolean") at /configOptions/0/type',
  },
  {
    name: "a protocol version over uint16",
    kind: "response",
    method: "initialize",
    value: { protocolVersion: 70000 },
    expect: "at /protocolVersion",
  },
  {
    name: "a permission option of an unknown kind",
    kind: "request",
    method: "session/request_permission",
    value: {
      sessionId: SESSION,
      toolCall: { toolCallId: "c" },
      options: [{ optionId: "a", name: "Allow", kind: "allow" }],
    },
    expect: 'Expected one of "allow_once", "allow_always", "reject_once", "reject_always", ' +
      'got "allow" at /options/0/kind',
  },
  {
    name: "terminal/create without command",
    kind: "request",
    method: "terminal/create",
    value: { sessionId: SESSION, args: [] },
    expect: 'Missing required property "command" at (root)',
  },
  {
    name: "a negative line",
    kind: "request",
    method: "fs/read_text_file",
    value: { sessionId: SESSION, path: "/p/a", line: -1 },
    expect: "at /line",
  },
  {
    name: "an error code that is a string",
    kind: "error",
    method: "",
    value: { code: "-32602", message: "bad" },
    expect: "Expected integer, got string at /code",
  },
  {
    name: "an error without message",
    kind: "error",
    method: "",
    value: { code: -32603 },
    expect: 'Missing required property "message" at (root)',
  },
];

/** Invalid for our validator only: the SDK strips unknown keys, strict mode reports them. */
const STRICT_ONLY: readonly (Sample & { readonly expect: string })[] = [
  {
    name: "a tool_call with tool_name at its root",
    kind: "notification",
    method: "session/update",
    value: update({ sessionUpdate: "tool_call", toolCallId: "c", title: "t", tool_name: "shell" }),
    expect: 'Unknown property "tool_name" (custom data belongs in "_meta") at /update/tool_name',
  },
  {
    name: "a prompt answer with tokens at its root",
    kind: "response",
    method: "session/prompt",
    value: { stopReason: "end_turn", tokens: { prompt: 1 } },
    expect: 'Unknown property "tokens" (custom data belongs in "_meta") at /tokens',
  },
  {
    name: "a misspelled field inside a diff",
    kind: "notification",
    method: "session/update",
    value: update({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      content: [{ type: "diff", path: "/p/a", old_text: "a", newText: "b" }],
    }),
    expect:
      'Unknown property "old_text" (custom data belongs in "_meta") at /update/content/0/old_text',
  },
  {
    name: "a key with a slash (escaped in the pointer)",
    kind: "response",
    method: "session/close",
    value: { "llama-agent/x": 1 },
    expect: 'Unknown property "llama-agent/x" (custom data belongs in "_meta") at /llama-agent~1x',
  },
];

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
