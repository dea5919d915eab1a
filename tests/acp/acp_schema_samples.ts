/**
 * ACP messages an agent might send, valid and invalid, for the schema validator's tests.
 */
export type Kind = "response" | "request" | "notification" | "error";

export interface Sample {
  readonly name: string;
  readonly kind: Kind;
  readonly method: string;
  readonly value: unknown;
}

export const SESSION = "sess_1";

export function update(body: Record<string, unknown>): unknown {
  return { sessionId: SESSION, update: body };
}

export const MODES = {
  currentModeId: "auto-approve-reads",
  availableModes: [
    { id: "always-ask", name: "Always ask", description: "Every tool call asks" },
    { id: "auto-approve-reads", name: "Auto-approve reads", description: null },
    { id: "rule-based", name: "Rule-based" },
  ],
};

export const CONFIG_OPTIONS = [
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

export const VALID: readonly Sample[] = [
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
