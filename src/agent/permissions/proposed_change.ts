/**
 * What the user is asked to allow before a file changes: the diff the write or edit would make,
 * read through the same door the change goes through. An edit that cannot be made shows no
 * diff: running it reports why.
 */
import { resolve } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { applyEdit, readForEdit } from "../files/file_edit.ts";
import { fileWriteDiff } from "../tools/tool_executor.ts";
import type { ToolExecutorDeps } from "../tools/tool_kit.ts";
import type { EditOperation, ToolOperation } from "../tools/tool_operation.ts";

export async function proposedFileChange(
  operation: ToolOperation,
  deps: Pick<ToolExecutorDeps, "cwd" | "files" | "signal">,
): Promise<ToolCallContent[]> {
  switch (operation.capability) {
    case "fs_write": {
      const diff = await fileWriteDiff(operation, deps);
      return diff.ok ? [diff.content] : [];
    }
    case "fs_edit":
      return await proposedEdit(operation, deps);
    case "shell":
    case "fs_read":
    case "fs_glob":
    case "fs_grep":
      return [];
    default:
      return operation satisfies never;
  }
}

async function proposedEdit(
  operation: EditOperation,
  deps: Pick<ToolExecutorDeps, "cwd" | "files" | "signal">,
): Promise<ToolCallContent[]> {
  const read = await readForEdit(deps.files, operation.path, deps.signal);
  if (!read.ok) return [];
  const applied = applyEdit(read.content, operation);
  if (!applied.ok) return [];
  return [{
    type: "diff",
    path: resolve(deps.cwd, operation.path),
    oldText: read.content,
    newText: applied.updated,
  }];
}
