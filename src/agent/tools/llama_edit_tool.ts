/**
 * The llama profile's `fs_edit`: an exact-string edit (file_edit.ts) read and written through
 * the session's file door, so a client that offers `fs/*` sees its own buffers changed. The
 * client is shown the change as an ACP diff; hooks get the edit and its structured patch; a
 * refused edit tells the model what to do instead.
 */
import { resolve } from "node:path";
import { type EditFailure, editFile } from "../files/file_edit.ts";
import { structuredPatch } from "../files/structured_patch.ts";
import {
  failedExecution as failed,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { EditOperation } from "./tool_operation.ts";
import { shownPath } from "./tool_presentation.ts";

export async function editTextFile(
  operation: EditOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const path = resolve(deps.cwd, operation.path);
  const locations = [{ path }];
  const edited = await editFile(deps.files, operation.path, operation, deps.signal);
  if (!edited.ok) {
    const message = edited.kind === "access"
      ? edited.message
      : editFailureMessage(operation.path, edited.failure, edited.matches);
    return {
      ...failed(message, edited.kind === "access" && edited.failure === "cancelled"),
      locations,
    };
  }
  const shown = shownPath(path, deps.cwd);
  const created = edited.original === null;
  const lineCount = countLines(edited.updated);
  const modelText = created
    ? `Created ${shown} (${lineCount} ${lineCount === 1 ? "line" : "lines"})`
    : `Edited ${shown}: ${edited.replacements} ${
      edited.replacements === 1 ? "replacement" : "replacements"
    }`;
  return {
    status: "completed",
    modelText,
    content: [{ type: "diff", path, oldText: edited.original, newText: edited.updated }],
    rawOutput: {
      filePath: path,
      oldString: operation.oldString,
      newString: operation.newString,
      replaceAll: operation.replaceAll,
      replacements: edited.replacements,
      structuredPatch: structuredPatch(edited.original ?? "", edited.updated),
    },
    locations,
    interrupted: false,
  };
}

/** Why the edit was not made, and what the model can do about it. */
function editFailureMessage(
  path: string,
  failure: EditFailure,
  matches: number | undefined,
): string {
  const what = `Cannot edit "${path}"`;
  switch (failure) {
    case "string_not_found":
      return `${what}: the text to replace was not found in the file. Read the file again ` +
        "and copy old_string exactly as it is there, whitespace and indentation included";
    case "multiple_matches":
      return `${what}: the text to replace occurs ${matches ?? "several"} times. Add ` +
        "surrounding lines to old_string so that it occurs once, or set replace_all to true " +
        "to replace every occurrence";
    case "no_change":
      return `${what}: old_string and new_string are the same, so nothing would change`;
    case "file_missing":
      return `${what}: no such file. Check the path, or create the file with fs_write ` +
        "(or with fs_edit and an empty old_string)";
    case "file_exists":
      return `${what}: old_string is empty but the file has content. Give the text to ` +
        "replace, or use fs_write to replace the whole file";
    default:
      return failure satisfies never;
  }
}

function countLines(text: string): number {
  return text === "" ? 0 : text.split(/(?<=\n)/).length;
}
