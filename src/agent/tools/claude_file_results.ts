/**
 * Claude Code's Read, Write and Edit as hooks and the model see them (claude-compat.md §1–§3):
 * numbered lines, the `tool_response` shapes key for key, and Claude Code's words for what went
 * wrong. What may refuse a call before any hook (claude_file_checks.ts) is checked again here,
 * on the text about to be replaced: a hook or the user may have changed the file since, or a
 * hook's `updatedInput` may name another file, and then the call fails as it runs, writing nothing.
 */
import { resolve } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import {
  changedProblem,
  checkEdit,
  isUnderRegularFile,
  missingFileText,
  readEditTarget,
} from "./claude_file_checks.ts";
import type { FileAccessFailure } from "../files/file_access.ts";
import type { FileReadState } from "../files/file_read_state.ts";
import { structuredPatch } from "../files/structured_patch.ts";
import { DEFAULT_READ_LIMIT } from "./claude_tool_definitions.ts";
import {
  failedExecution as failed,
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { EditOperation, ReadOperation, WriteOperation } from "./tool_operation.ts";

/** After a write or edit the model need not read the file back (it knows what is there). */
const FILE_STATE_SUFFIX = " (file state is current in your context — no need to Read it back)";

const EMPTY_FILE_TEXT =
  "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";

function shorterThanOffsetText(offset: number, totalLines: number): string {
  return `<system-reminder>Warning: the file exists but is shorter than the provided offset ` +
    `(${offset}). The file has ${totalLines} lines.</system-reminder>`;
}

/**
 * A failed read or write through a file door, in Claude Code's words where it has them (a
 * missing file, a directory), else the door's own sentence.
 */
function accessFailure(
  failure: { readonly failure: FileAccessFailure; readonly message: string },
  path: string,
  syscall: "read" | "open",
  cwd: string,
): ToolExecution {
  switch (failure.failure) {
    case "not_found":
      return failed(missingFileText(cwd));
    case "is_directory":
      return failed(`EISDIR: illegal operation on a directory, ${syscall} '${path}'`);
    case "cancelled":
      return failed(failure.message, true);
    case "refused":
    case "failed":
      return failed(failure.message);
    default:
      return failure.failure satisfies never;
  }
}

export async function readFileLines(
  operation: ReadOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<ToolExecution> {
  const path = resolve(deps.cwd, operation.path);
  const locations = [operation.offset === undefined ? { path } : { path, line: operation.offset }];
  const read = await deps.files.readTextFile(operation.path, { signal: deps.signal });
  if (!read.ok) {
    // Claude Code finds no file below a regular file; the door's words would say why.
    const failure = await isUnderRegularFile(read.failure, path, deps)
      ? failed(missingFileText(deps.cwd))
      : accessFailure(read, path, "read", deps.cwd);
    return { ...failure, locations };
  }
  state.remember(path, read.content);
  // A final newline ends with an empty last line, which Claude Code numbers and counts.
  const lines = read.content.split(/\r?\n/);
  const startLine = operation.offset ?? 1;
  const selected = lines.slice(
    startLine - 1,
    startLine - 1 + (operation.limit ?? DEFAULT_READ_LIMIT),
  );
  const modelText = read.content === ""
    ? EMPTY_FILE_TEXT
    : selected.length === 0
    ? shorterThanOffsetText(startLine, lines.length)
    : selected.map((line, index) => `${startLine + index}\t${line}`).join("\n");
  return {
    status: "completed",
    modelText,
    content: [text(modelText)],
    rawOutput: {
      type: "text",
      file: {
        // As the model gave it (claude-compat.md §1).
        filePath: operation.path,
        content: selected.join("\n"),
        numLines: selected.length,
        startLine,
        totalLines: lines.length,
      },
    },
    locations,
    interrupted: false,
  };
}

export async function writeWholeFile(
  operation: WriteOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<ToolExecution> {
  const path = resolve(deps.cwd, operation.path);
  const locations = [{ path }];
  const before = await deps.files.readTextFile(path, { signal: deps.signal });
  // A refused path is not a problem yet: the write reports the refusal in its own words.
  if (!before.ok && before.failure !== "not_found" && before.failure !== "refused") {
    return { ...accessFailure(before, path, "open", deps.cwd), locations };
  }
  const original = before.ok ? before.content : null;
  const changed = original === null ? undefined : changedProblem(path, original, state);
  if (changed !== undefined) return { ...failed(changed), locations };
  const written = await deps.files.writeTextFile(path, operation.content, { signal: deps.signal });
  if (!written.ok) return { ...accessFailure(written, path, "open", deps.cwd), locations };
  state.remember(path, operation.content);
  const modelText = original === null
    ? `File created successfully at: ${path}${FILE_STATE_SUFFIX}`
    : `The file ${path} has been updated successfully.${FILE_STATE_SUFFIX}`;
  return {
    status: "completed",
    modelText,
    content: [diff(path, original, operation.content)],
    rawOutput: {
      type: original === null ? "create" : "update",
      filePath: path,
      content: operation.content,
      structuredPatch: original === null ? [] : structuredPatch(original, operation.content),
      originalFile: original,
      userModified: false,
    },
    locations,
    interrupted: false,
  };
}

export async function editFileText(
  operation: EditOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<ToolExecution> {
  const path = resolve(deps.cwd, operation.path);
  const locations = [{ path }];
  // Before the edit is remembered: whether the model had the file in its context.
  const seen = state.has(path);
  const { oldString, newString, replaceAll } = operation;
  const read = await readEditTarget(path, deps);
  if (!read.ok) return { ...accessFailure(read, path, "read", deps.cwd), locations };
  const checked = checkEdit(read.content, operation, path, deps.cwd, state);
  if (!checked.ok) return { ...failed(checked.message), locations };
  const written = await deps.files.writeTextFile(path, checked.updated, { signal: deps.signal });
  if (!written.ok) return { ...accessFailure(written, path, "read", deps.cwd), locations };
  const { updated } = checked;
  state.remember(path, updated);
  // A file the model never read (and did not just create) is changed without it knowing the rest.
  const unseen = read.content !== null && !seen;
  const original = read.content ?? "";
  const done = replaceAll
    ? `The file ${path} has been updated. All occurrences were successfully replaced.`
    : `The file ${path} has been updated successfully.`;
  const modelText = unseen ? done : done + FILE_STATE_SUFFIX;
  return {
    status: "completed",
    modelText,
    content: [diff(path, read.content, updated)],
    rawOutput: {
      filePath: path,
      oldString,
      newString,
      originalFile: original,
      structuredPatch: structuredPatch(original, updated),
      userModified: false,
      replaceAll,
      ...(unseen ? { contentNotInModelContext: true } : {}),
    },
    locations,
    interrupted: false,
  };
}

function diff(path: string, oldText: string | null, newText: string): ToolCallContent {
  return { type: "diff", path, oldText, newText };
}
