/**
 * Runs one built-in tool call (shell, fs_read, fs_write) and says what came of it twice: the text
 * the model reads as the result, and the ACP content the client shows (text, a diff, or the
 * embedded terminal). Every problem (bad input, a refused path, a missing file, a timeout, a
 * cancel) is a `failed` result with a message the model can act on; nothing throws. A shell
 * command that exits non-zero completed: its exit code is part of the result, as in a terminal.
 *
 * The file and shell doors are passed in, so the same code serves local and client-side tools.
 */
import { resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation } from "@agentclientprotocol/sdk";
import { errorMessage } from "../error.ts";
import type { FileAccess } from "./file_access.ts";
import type { ShellRunner } from "./shell_runner.ts";
import {
  type FsReadInput,
  type FsWriteInput,
  parseToolInput,
  type ShellInput,
} from "./tool_input.ts";
import type { ToolCapability } from "./tool_names.ts";
import { shownPath } from "./tool_presentation.ts";

/** Lines returned when the model gives no `limit` (Claude Code's Read default). */
export const DEFAULT_READ_LINES = 2000;
/** Characters of a file the model is shown at once. */
export const MAX_READ_CHARS = 100_000;

export interface ToolCall {
  /** The name the model emitted (an alias stays an alias), for messages. */
  readonly name: string;
  readonly capability: ToolCapability;
  /** The raw input; it is validated here. */
  readonly input: unknown;
}

export interface ToolExecutorDeps {
  /** The session cwd, absolute. */
  readonly cwd: string;
  readonly files: FileAccess;
  readonly shell: ShellRunner;
  readonly signal?: AbortSignal;
  /** Passed to the shell runner: a client terminal exists and can be embedded now. */
  readonly onTerminal?: (terminalId: string) => void | Promise<void>;
}

export interface ToolExecution {
  readonly status: "completed" | "failed";
  /** What the model is shown as the call's result. */
  readonly modelText: string;
  readonly content: ToolCallContent[];
  /** Claude-Code-shaped where Claude Code has a shape (hooks read it as `tool_response`). */
  readonly rawOutput: Record<string, unknown>;
  readonly locations?: ToolCallLocation[];
  /** The call was stopped by a cancel (PostToolUseFailure's `is_interrupt`). */
  readonly interrupted: boolean;
}

export async function executeTool(call: ToolCall, deps: ToolExecutorDeps): Promise<ToolExecution> {
  if (deps.signal?.aborted) return failed("The tool call was cancelled before it ran", true);
  const parsed = parseToolInput(call.capability, call.input, call.name);
  if (!parsed.ok) return failed(parsed.message);
  try {
    const { value } = parsed;
    switch (value.capability) {
      case "shell":
        return await runShell(value.input, deps);
      case "fs_read":
        return await readFile(value.input, deps);
      case "fs_write":
        return await writeFile(value.input, deps);
      default:
        return value satisfies never;
    }
  } catch (error) {
    // The doors answer with values; reaching this is a bug, but the model still gets a result.
    return failed(`Internal error while running ${call.name}: ${errorMessage(error)}`);
  }
}

async function runShell(input: ShellInput, deps: ToolExecutorDeps): Promise<ToolExecution> {
  const result = await deps.shell.run({
    command: input.command,
    cwd: deps.cwd,
    timeoutMs: input.timeout,
    signal: deps.signal,
    onTerminal: deps.onTerminal,
  });
  const terminal: ToolCallContent[] = result.terminalId === undefined
    ? []
    : [{ type: "terminal", terminalId: result.terminalId }];
  if (result.kind === "failed") {
    return { ...failed(result.message), content: [...terminal, text(result.message)] };
  }
  const notes: string[] = [];
  if (result.truncated) {
    notes.push(
      result.omittedBytes === undefined
        ? "[output truncated: only its end is shown]"
        : `[output truncated: ${result.omittedBytes} more bytes not shown]`,
    );
  }
  const rawOutput = {
    stdout: result.output,
    stderr: "",
    interrupted: result.kind !== "exited",
    truncated: result.truncated,
    durationMs: result.durationMs,
  };
  switch (result.kind) {
    case "exited": {
      if (result.signal !== null) notes.push(`[killed by ${result.signal}]`);
      else if (result.exitCode !== 0) notes.push(`[exit code ${result.exitCode ?? "unknown"}]`);
      const modelText = withNotes(result.output || "(no output)", notes);
      return {
        status: "completed",
        modelText,
        // A client terminal already shows the output; locally, the text is all there is.
        content: terminal.length > 0 ? terminal : [text(modelText)],
        rawOutput: { ...rawOutput, exitCode: result.exitCode, signal: result.signal },
        interrupted: false,
      };
    }
    case "timed_out":
    case "cancelled": {
      const what = result.kind === "timed_out"
        ? `[timed out after ${input.timeout} ms: the command was stopped]`
        : "[cancelled: the command was stopped]";
      const modelText = withNotes(result.output, [...notes, what]);
      return {
        status: "failed",
        modelText,
        content: terminal.length > 0 ? [...terminal, text(what)] : [text(modelText)],
        rawOutput: { ...rawOutput, exitCode: null, signal: null },
        interrupted: result.kind === "cancelled",
      };
    }
    default:
      return result satisfies never;
  }
}

async function readFile(input: FsReadInput, deps: ToolExecutorDeps): Promise<ToolExecution> {
  const path = resolve(deps.cwd, input.file_path);
  const locations = [input.offset === undefined ? { path } : { path, line: input.offset }];
  const startLine = input.offset ?? 1;
  // Without a limit, ask for one line more than is shown, to know whether the file goes on.
  const limit = input.limit ?? DEFAULT_READ_LINES + 1;
  const read = await deps.files.readTextFile(input.file_path, {
    ...(input.offset === undefined ? {} : { line: input.offset }),
    limit,
    signal: deps.signal,
  });
  if (!read.ok) {
    return { ...failed(read.message, read.failure === "cancelled"), locations };
  }
  let content = read.content;
  const notes: string[] = [];
  const lines = content.split(/(?<=\n)/);
  if (input.limit === undefined && lines.length > DEFAULT_READ_LINES) {
    content = lines.slice(0, DEFAULT_READ_LINES).join("");
    const next = startLine + DEFAULT_READ_LINES;
    notes.push(
      `[showing lines ${startLine}-${next - 1}; the file goes on: read more with offset ${next}]`,
    );
  }
  if (content.length > MAX_READ_CHARS) {
    content = content.slice(0, MAX_READ_CHARS);
    notes.push(
      `[cut at ${MAX_READ_CHARS} characters: read fewer lines at a time with offset and limit]`,
    );
  }
  const numLines = content === "" ? 0 : content.split(/(?<=\n)/).length;
  const empty = input.offset !== undefined && input.offset > 1
    ? `(no lines from line ${input.offset}: the file is shorter)`
    : "(the file is empty)";
  const modelText = withNotes(content === "" ? empty : content, notes);
  return {
    status: "completed",
    modelText,
    content: [text(modelText)],
    rawOutput: { type: "text", file: { filePath: path, content, numLines, startLine } },
    locations,
    interrupted: false,
  };
}

async function writeFile(input: FsWriteInput, deps: ToolExecutorDeps): Promise<ToolExecution> {
  const path = resolve(deps.cwd, input.file_path);
  const locations = [{ path }];
  const diff = await fileWriteDiff(input, deps);
  if (!diff.ok) return { ...failed(diff.message, diff.cancelled), locations };
  const written = await deps.files.writeTextFile(input.file_path, input.content, {
    signal: deps.signal,
  });
  if (!written.ok) {
    return { ...failed(written.message, written.failure === "cancelled"), locations };
  }
  const created = diff.content.oldText === null;
  const lineCount = input.content === "" ? 0 : input.content.split(/(?<=\n)/).length;
  const modelText = `${created ? "Created" : "Updated"} ${
    shownPath(path, deps.cwd)
  } (${lineCount} ${lineCount === 1 ? "line" : "lines"})`;
  return {
    status: "completed",
    modelText,
    content: [diff.content],
    rawOutput: { type: created ? "create" : "update", filePath: path, content: input.content },
    locations,
    interrupted: false,
  };
}

export type FileWriteDiff =
  | {
    readonly ok: true;
    readonly content: ToolCallContent & { type: "diff"; oldText: string | null };
  }
  | { readonly ok: false; readonly message: string; readonly cancelled: boolean };

/**
 * The diff a write would make (`oldText: null` for a new file), read through the same door the
 * write goes through. Also for the permission prompt, which shows the change before it is made.
 * A refused path is not an error here: the write itself reports it.
 */
export async function fileWriteDiff(
  input: FsWriteInput,
  deps: Pick<ToolExecutorDeps, "cwd" | "files" | "signal">,
): Promise<FileWriteDiff> {
  const path = resolve(deps.cwd, input.file_path);
  const old = await deps.files.readTextFile(input.file_path, { signal: deps.signal });
  if (!old.ok && old.failure !== "not_found" && old.failure !== "refused") {
    return {
      ok: false,
      message: `Cannot write "${input.file_path}": its current content cannot be read to show ` +
        `the change (${old.message})`,
      cancelled: old.failure === "cancelled",
    };
  }
  return {
    ok: true,
    content: { type: "diff", path, oldText: old.ok ? old.content : null, newText: input.content },
  };
}

function failed(message: string, interrupted = false): ToolExecution {
  return {
    status: "failed",
    modelText: message,
    content: [text(message)],
    rawOutput: { error: message },
    interrupted,
  };
}

function text(value: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: value } };
}

function withNotes(body: string, notes: readonly string[]): string {
  if (notes.length === 0) return body;
  const separator = body === "" || body.endsWith("\n") ? "" : "\n";
  return body + separator + notes.join("\n");
}
