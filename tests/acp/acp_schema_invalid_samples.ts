/**
 * ACP messages an agent must not send: each with the problem the validator must name.
 */
import { MODES, type Sample, SESSION, update } from "./acp_schema_samples.ts";

/**
 * Invalid against the schema. `sdk` says what the SDK's zod schemas (what acpx and editors parse
 * with) make of it: most they reject, but where the schema marks a field
 * `x-deserialize-default-on-error` or `x-deserialize-skip-invalid-items` they quietly drop the bad
 * value, so a client would never report it: only this check does. The "SDK second opinion" test
 * checks `sdk`.
 */
export const INVALID:
  readonly (Sample & { readonly expect: string; readonly sdk?: "tolerates" })[] = [
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
      expect:
        'Unknown type "toggle" (expected one of "select", "boolean") at /configOptions/0/type',
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
export const STRICT_ONLY: readonly (Sample & { readonly expect: string })[] = [
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
