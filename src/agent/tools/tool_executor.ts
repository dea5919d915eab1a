/**
 * Runs one built-in operation the llama profile's way and says what came of it twice: the text
 * the model reads as the result, and the ACP content the client shows (text, a diff, or the
 * embedded terminal). The edit and the searches are in llama_edit_tool.ts and
 * llama_search_tools.ts. Every problem (a refused path, a missing file, a timeout, a cancel) is a
 * `failed` result with a message the model can act on; nothing throws. The shell's result is
 * llama_shell_result.ts's: a command that exits non-zero is a failed call, as in Claude Code.
 *
 * The file and shell doors are passed in, so the same code serves local and client-side tools.
 */
import { resolve } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import {
  failedExecution as failed,
  guardedExecute,
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { ReadOperation, WriteOperation } from "./tool_operation.ts";
import { editTextFile } from "./llama_edit_tool.ts";
import { runShell } from "./llama_shell_result.ts";
import { findFiles, searchFiles } from "./llama_search_tools.ts";
import { shownPath } from "./tool_presentation.ts";

/** Lines returned when the model gives no `limit` (Claude Code's Read default). */
export const DEFAULT_READ_LINES = 2000;
/** Characters of a file the model is shown at once. */
export const MAX_READ_CHARS = 100_000;

/** The llama profile's operations, each reported its way (see the module comment). */
export const executeOperation = guardedExecute((operation, deps) => {
  switch (operation.capability) {
    case "shell":
      return runShell(operation, deps);
    case "fs_read":
      return readFile(operation, deps);
    case "fs_write":
      return writeFile(operation, deps);
    case "fs_edit":
      return editTextFile(operation, deps);
    case "fs_glob":
      return findFiles(operation, deps);
    case "fs_grep":
      return searchFiles(operation, deps);
    default:
      return operation satisfies never;
  }
});

async function readFile(input: ReadOperation, deps: ToolExecutorDeps): Promise<ToolExecution> {
  const path = resolve(deps.cwd, input.path);
  const locations = [input.offset === undefined ? { path } : { path, line: input.offset }];
  const startLine = input.offset ?? 1;
  // Without a limit, ask for one line more than is shown, to know whether the file goes on.
  const limit = input.limit ?? DEFAULT_READ_LINES + 1;
  const read = await deps.files.readTextFile(input.path, {
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

async function writeFile(input: WriteOperation, deps: ToolExecutorDeps): Promise<ToolExecution> {
  const path = resolve(deps.cwd, input.path);
  const locations = [{ path }];
  const diff = await fileWriteDiff(input, deps);
  if (!diff.ok) return { ...failed(diff.message, diff.cancelled), locations };
  const written = await deps.files.writeTextFile(input.path, input.content, {
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
  input: WriteOperation,
  deps: Pick<ToolExecutorDeps, "cwd" | "files" | "signal">,
): Promise<FileWriteDiff> {
  const path = resolve(deps.cwd, input.path);
  const old = await deps.files.readTextFile(input.path, { signal: deps.signal });
  if (!old.ok && old.failure !== "not_found" && old.failure !== "refused") {
    return {
      ok: false,
      message: `Cannot write "${input.path}": its current content cannot be read to show ` +
        `the change (${old.message})`,
      cancelled: old.failure === "cancelled",
    };
  }
  return {
    ok: true,
    content: { type: "diff", path, oldText: old.ok ? old.content : null, newText: input.content },
  };
}

function withNotes(body: string, notes: readonly string[]): string {
  if (notes.length === 0) return body;
  const separator = body === "" || body.endsWith("\n") ? "" : "\n";
  return body + separator + notes.join("\n");
}
