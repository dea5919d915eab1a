/**
 * Generated GGUF models for tests and benchmarks: real llama.cpp models with a fixed script (see
 * src/model/scripted/scripted_gguf.ts). Each writes a file of a few MB into `dir` in tens of
 * milliseconds and returns its path; the caller owns `dir` (a temporary directory).
 */
import {
  type ScriptedModelOptions,
  writeScriptedModel,
} from "../../src/model/scripted/scripted_gguf.ts";
import type { ToolDefinition } from "../../src/model/model.ts";

/** A tool whose input is one required string and no other key: a call's params end after it. */
export function oneStringTool(name: string, description: string, param: string): ToolDefinition {
  return {
    name,
    description,
    inputSchema: {
      type: "object",
      properties: { [param]: { type: "string" } },
      required: [param],
      additionalProperties: false,
    },
  };
}

export interface ToolCallScript {
  readonly toolName: string;
  /** Keys in the order of the tool schema's required properties (the call grammar's order). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The reply once the call's result is in the context. */
  readonly answer: string;
  /** What follows `answer` where a grammar forbids ending there (a hook verdict). */
  readonly verdict?: string;
}

export const REPLY_TEXT = "Hello from the scripted model.";

/** Calls `fs_read` on notes.txt, then answers. */
export const READ_NOTES: ToolCallScript = {
  toolName: "fs_read",
  params: { file_path: "notes.txt" },
  answer: "I read notes.txt.",
};

/** Calls `shell` with a command that runs for 30 s: for cancelling during a running tool. */
export const SLEEP_SHELL: ToolCallScript = {
  toolName: "shell",
  params: { command: "sleep 30" },
  answer: "The command finished.",
};

/** Calls `fs_write` to create out.txt, then answers. */
export const WRITE_OUT: ToolCallScript = {
  toolName: "fs_write",
  params: { file_path: "out.txt", content: "written by the model\n" },
  answer: "I wrote out.txt.",
};

/**
 * A hook verdict as a reply: the JSON-schema grammar of a verdict accepts these exact pieces
 * (`{"ok":`, ` false,`, ...), and after the closing brace the grammar's four newlines come from
 * the model's closing bias on "\n", so a reply model answers it through the grammar as written.
 */
export const FRIDAY_VERDICT = '{"ok": false, "reason": "no deploys on Friday"}';

/**
 * An agent hook on the real path: calls `fs_read` on notes.txt, answers in prose, and gives its
 * verdict when the grammar asks for one after the prose.
 */
export const READ_NOTES_THEN_VERDICT: ToolCallScript = {
  toolName: "fs_read",
  params: { file_path: "notes.txt" },
  answer: "The notes freeze deploys.",
  verdict: '{"ok": false, "reason": "deploys are frozen"}',
};

/** Calls `fs_read` on notes.txt, then answers with a verdict right away, without a grammar. */
export const READ_NOTES_VERDICT: ToolCallScript = {
  toolName: "fs_read",
  params: { file_path: "notes.txt" },
  answer: '{"ok": true, "reason": "nothing in the notes"}',
};

/** A model that replies `reply` to every prompt and ends its turn. */
export async function writeReplyModel(
  dir: string,
  reply: string = REPLY_TEXT,
  fileName = "reply.gguf",
): Promise<string> {
  const path = `${dir}/${fileName}`;
  await writeScriptedModel(path, { kind: "reply", text: reply });
  return path;
}

/** A model that makes one tool call per prompt, then answers once it sees the result. */
export async function writeToolCallModel(
  dir: string,
  script: ToolCallScript,
  fileName = `${script.toolName}_call.gguf`,
  options: ScriptedModelOptions = {},
): Promise<string> {
  const path = `${dir}/${fileName}`;
  await writeScriptedModel(path, { kind: "tool_call", ...script }, options);
  return path;
}

/** A model whose reply never ends (" tick tock tick ..."): stop it with a signal or a cap. */
export async function writeEndlessModel(dir: string, fileName = "endless.gguf"): Promise<string> {
  const path = `${dir}/${fileName}`;
  await writeScriptedModel(path, { kind: "endless" });
  return path;
}
