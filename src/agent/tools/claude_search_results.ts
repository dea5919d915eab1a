/**
 * Claude Code's Glob and Grep as hooks and the model see them (claude-compat.md §4): paths
 * relative to the session cwd, `No files found` for nothing, `Found N files` before a list of
 * files, the matching lines as they are in content mode, and the `tool_response` shapes.
 */
import { GLOB_RESULT_LIMIT } from "./claude_tool_definitions.ts";
import { globOperation } from "../search/file_glob.ts";
import { formatGrepContent, grepFiles } from "../search/file_grep.ts";
import {
  failedExecution as failed,
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { GlobOperation, GrepOperation } from "./tool_operation.ts";
import { shownPath } from "./tool_presentation.ts";

const NO_FILES_TEXT = "No files found";
const NO_MATCHES_TEXT = "No matches found";
const GLOB_TRUNCATED_TEXT =
  "(Results are truncated. Consider using a more specific path or pattern.)";

export async function globForModel(
  operation: GlobOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const started = performance.now();
  const found = await globOperation(operation, deps, GLOB_RESULT_LIMIT);
  if (!found.ok) return failed(found.message, deps.signal?.aborted ?? false);
  const filenames = found.files.map((file) => shownPath(file, deps.cwd));
  const modelText = filenames.length === 0
    ? NO_FILES_TEXT
    : [...filenames, ...(found.truncated ? [GLOB_TRUNCATED_TEXT] : [])].join("\n");
  return completed(modelText, {
    filenames,
    durationMs: Math.round(performance.now() - started),
    numFiles: filenames.length,
    truncated: found.truncated,
    totalMatches: found.total,
    countIsComplete: !found.walkCapped,
  });
}

export async function grepForModel(
  operation: GrepOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const found = await grepFiles(operation, deps);
  if (!found.ok) return failed(found.message, deps.signal?.aborted ?? false);
  const page = <T>(items: readonly T[]) => paginate(items, operation);
  switch (operation.outputMode) {
    case "files_with_matches": {
      const all = found.files.map((file) => shownPath(file.path, deps.cwd));
      const filenames = page(all);
      const noun = filenames.length === 1 ? "file" : "files";
      const modelText = filenames.length === 0
        ? NO_FILES_TEXT
        : `Found ${filenames.length} ${noun}\n${filenames.join("\n")}`;
      return completed(withPageNote(modelText, all.length, filenames.length, operation), {
        mode: "files_with_matches",
        filenames,
        numFiles: filenames.length,
        totalFiles: all.length,
        ...pageKeys(all.length, filenames.length, operation),
      });
    }
    case "content": {
      const all = formatGrepContent(found.files, {
        cwd: deps.cwd,
        lineNumbers: operation.lineNumbers,
        context: operation.before > 0 || operation.after > 0,
      });
      const lines = page(all);
      const content = lines.join("\n");
      const modelText = content === "" ? NO_MATCHES_TEXT : content;
      return completed(withPageNote(modelText, all.length, lines.length, operation), {
        mode: "content",
        numFiles: 0,
        filenames: [],
        content,
        numLines: lines.length,
        totalLines: all.length,
        ...pageKeys(all.length, lines.length, operation),
      });
    }
    case "count": {
      const all = found.files.map((file) => ({
        line: `${shownPath(file.path, deps.cwd)}:${file.count}`,
        count: file.count,
      }));
      const counted = page(all);
      const content = counted.map((entry) => entry.line).join("\n");
      const matches = counted.reduce((sum, entry) => sum + entry.count, 0);
      const modelText = counted.length === 0 ? NO_MATCHES_TEXT : `${content}\n\nFound ${matches} ` +
        `total ${matches === 1 ? "occurrence" : "occurrences"} across ${counted.length} ` +
        `${counted.length === 1 ? "file" : "files"}.`;
      return completed(withPageNote(modelText, all.length, counted.length, operation), {
        mode: "count",
        numFiles: counted.length,
        filenames: [],
        content,
        numMatches: matches,
        ...pageKeys(all.length, counted.length, operation),
      });
    }
    default:
      return operation.outputMode satisfies never;
  }
}

function paginate<T>(items: readonly T[], operation: GrepOperation): T[] {
  const end = operation.headLimit === undefined
    ? undefined
    : operation.offset + operation.headLimit;
  return items.slice(operation.offset, end);
}

/** Whether `head_limit` or `offset` left some results out. */
function cut(total: number, shown: number, operation: GrepOperation): boolean {
  return operation.offset > 0 || shown < total;
}

function pageKeys(total: number, shown: number, operation: GrepOperation) {
  if (!cut(total, shown, operation)) return {};
  return {
    ...(operation.headLimit === undefined ? {} : { appliedLimit: operation.headLimit }),
    ...(operation.offset > 0 ? { appliedOffset: operation.offset } : {}),
  };
}

/** Tells the model that it sees one page of the results, and which. */
function withPageNote(
  modelText: string,
  total: number,
  shown: number,
  operation: GrepOperation,
): string {
  if (!cut(total, shown, operation)) return modelText;
  const parts = [
    ...(operation.headLimit === undefined ? [] : [`limit: ${operation.headLimit}`]),
    ...(operation.offset > 0 ? [`offset: ${operation.offset}`] : []),
  ];
  return `${modelText}\n\n[Showing results with pagination = ${parts.join(", ")}]`;
}

function completed(modelText: string, rawOutput: Record<string, unknown>): ToolExecution {
  return {
    status: "completed",
    modelText,
    content: [text(modelText)],
    rawOutput,
    interrupted: false,
  };
}
