/**
 * What Claude Code checks of a Write or an Edit before any hook runs (claude-compat.md §0.2, §2,
 * §3): a call that fails here fires no tool hook and the model reads the problem as
 * `<tool_use_error>…</tool_use_error>`. Problems the file doors cannot see coming (a refused
 * path, an unreadable file) are left to the call itself.
 *
 * The same checks run again as the call executes (claude_file_results.ts): a PreToolUse hook, the
 * user while a permission prompt is open, or an `updatedInput` naming another file may have
 * changed what was checked, and a write must never go over changes the model has not seen. In a
 * session the file is read once for both, and again only after a hook ran or the user was asked
 * (call_file_reads.ts).
 */
import { dirname, resolve } from "node:path";
import type { FileAccessFailure } from "../files/file_access.ts";
import { applyEdit, type EditFailure, type ReadForEdit, readForEdit } from "../files/file_edit.ts";
import { type FileReadState, MODIFIED_SINCE_READ_MESSAGE } from "../files/file_read_state.ts";
import type { ToolExecutorDeps } from "./tool_kit.ts";
import type { EditOperation, WriteOperation } from "./tool_operation.ts";

export function missingFileText(cwd: string): string {
  return `File does not exist. Note: your current working directory is ${cwd}.`;
}

/** The model's words for an edit that cannot be made (§3); `matches` for several matches. */
function editFailureText(
  failure: EditFailure,
  edit: EditOperation,
  cwd: string,
  matches = 0,
): string {
  switch (failure) {
    case "string_not_found":
      return `String to replace not found in file.\nString: ${edit.oldString}`;
    case "multiple_matches":
      return `Found ${matches} matches of the string to replace, but replace_all is false. ` +
        "To replace all occurrences, set replace_all to true. To replace only one occurrence, " +
        `please provide more context to uniquely identify the instance.\nString: ${edit.oldString}`;
    case "no_change":
      return "No changes to make: old_string and new_string are exactly the same.";
    case "file_missing":
      return missingFileText(cwd);
    case "file_exists":
      return "Cannot create new file - file already exists.";
    default:
      return failure satisfies never;
  }
}

export async function writeProblem(
  operation: WriteOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<string | undefined> {
  const path = resolve(deps.cwd, operation.path);
  const current = await deps.files.readTextFile(path, { signal: deps.signal });
  if (current.ok) return changedProblem(path, current.content, state);
  // A file where a directory should be makes the path unusable (a missing one is created).
  if (await isUnderRegularFile(current.failure, path, deps)) {
    return `Error calling tool (Write): ENOTDIR: not a directory, stat '${path}'`;
  }
  return undefined;
}

/** The refusal for a file whose text is no longer what the model last saw of it. */
export function changedProblem(
  path: string,
  current: string,
  state: FileReadState,
): string | undefined {
  return state.changedSinceSeen(path, current) ? MODIFIED_SINCE_READ_MESSAGE : undefined;
}

/**
 * Whether a failed access to `path` failed because a directory of it is a regular file. The
 * doors have no word for that (the local one refuses the path, a client's just fails).
 */
export async function isUnderRegularFile(
  failure: FileAccessFailure,
  path: string,
  deps: ToolExecutorDeps,
): Promise<boolean> {
  return (failure === "refused" || failure === "failed") && await regularFileAbove(path, deps);
}

/** Whether a directory of `path` is a file: the first one that exists, going up. */
async function regularFileAbove(path: string, deps: ToolExecutorDeps): Promise<boolean> {
  for (let parent = dirname(path); parent !== path; [path, parent] = [parent, dirname(parent)]) {
    const read = await deps.files.readTextFile(parent, { signal: deps.signal });
    if (read.ok) return true;
    if (read.failure !== "not_found" && read.failure !== "refused") return false;
  }
  return false;
}

/**
 * The file an edit works on, as Claude Code sees it: a path under a regular file does not exist
 * (`content` null), like a missing one.
 */
export async function readEditTarget(path: string, deps: ToolExecutorDeps): Promise<ReadForEdit> {
  const read = await readForEdit(deps.files, path, deps.signal);
  if (!read.ok && await isUnderRegularFile(read.failure, path, deps)) {
    return { ok: true, content: null };
  }
  return read;
}

export type CheckedEdit =
  | { readonly ok: true; readonly updated: string }
  | { readonly ok: false; readonly message: string };

/**
 * In Claude Code's order: an edit that changes nothing, a missing file (or an existing one for
 * an empty `old_string`), a file changed since the model read it, then the string's matches.
 * `content` is the file's text now, null for a file that does not exist.
 */
export function checkEdit(
  content: string | null,
  operation: EditOperation,
  path: string,
  cwd: string,
  state: FileReadState,
): CheckedEdit {
  const applied = applyEdit(content, operation);
  if (
    applied.ok || applied.failure === "string_not_found" || applied.failure === "multiple_matches"
  ) {
    const changed = content === null ? undefined : changedProblem(path, content, state);
    if (changed !== undefined) return { ok: false, message: changed };
  }
  if (applied.ok) return { ok: true, updated: applied.updated };
  return {
    ok: false,
    message: editFailureText(applied.failure, operation, cwd, applied.matches),
  };
}

export async function editProblem(
  operation: EditOperation,
  deps: ToolExecutorDeps,
  state: FileReadState,
): Promise<string | undefined> {
  const path = resolve(deps.cwd, operation.path);
  const read = await readEditTarget(path, deps);
  if (!read.ok) return undefined;
  const checked = checkEdit(read.content, operation, path, deps.cwd, state);
  return checked.ok ? undefined : checked.message;
}
