/**
 * The llama profile's `fs_glob` and `fs_grep`: the confined searches (file_glob.ts,
 * file_grep.ts) told to the model as plain lists, paths relative to the cwd, cut to a size the
 * model can take in, with a note saying how much was left out and how to see it.
 */
import { globOperation } from "../search/file_glob.ts";
import { formatGrepContent, type GrepFileResult, grepFiles } from "../search/file_grep.ts";
import { DEFAULT_MAX_WALK_ENTRIES } from "../search/file_walk.ts";
import {
  failedExecution as failed,
  textContent as text,
  type ToolExecution,
  type ToolExecutorDeps,
} from "./tool_kit.ts";
import type { GlobOperation, GrepOperation } from "./tool_operation.ts";
import { shownPath } from "./tool_presentation.ts";

/** Files fs_glob lists at most. */
export const GLOB_LIMIT = 100;
/** Lines (content, count) or files fs_grep lists when the model gives no head_limit. */
export const GREP_DEFAULT_LIMIT = 250;

const WALK_CAPPED_NOTE = `[the search stopped after ${DEFAULT_MAX_WALK_ENTRIES} entries: ` +
  "files beyond them were not looked at; give a narrower path]";

export async function findFiles(
  operation: GlobOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const found = await globOperation(operation, deps, GLOB_LIMIT);
  if (!found.ok) return failed(found.message, deps.signal?.aborted ?? false);
  const filenames = found.files.map((file) => shownPath(file, deps.cwd));
  const notes: string[] = [];
  if (found.truncated) {
    notes.push(
      `[${found.total} files matched; only the first ${filenames.length} are shown: ` +
        "narrow the pattern or the path]",
    );
  }
  if (found.walkCapped) notes.push(WALK_CAPPED_NOTE);
  const modelText = [filenames.length === 0 ? "No files found" : filenames.join("\n"), ...notes]
    .join("\n");
  return {
    status: "completed",
    modelText,
    content: [text(modelText)],
    rawOutput: { filenames, numFiles: filenames.length, truncated: found.truncated },
    interrupted: false,
  };
}

export async function searchFiles(
  operation: GrepOperation,
  deps: ToolExecutorDeps,
): Promise<ToolExecution> {
  const found = await grepFiles(operation, deps);
  if (!found.ok) return failed(found.message, deps.signal?.aborted ?? false);
  const shown = (file: GrepFileResult) => shownPath(file.path, deps.cwd);
  const walkNote = found.walkCapped ? [WALK_CAPPED_NOTE] : [];
  const done = (modelText: string, rawOutput: Record<string, unknown>): ToolExecution => ({
    status: "completed",
    modelText,
    content: [text(modelText)],
    rawOutput,
    interrupted: false,
  });
  const mode = operation.outputMode;
  switch (mode) {
    case "files_with_matches": {
      const page = pageOf(found.files.map(shown), operation, "files");
      const body = found.files.length === 0
        ? "No files found"
        : `Found ${plural(found.files.length, "file")}\n${page.items.join("\n")}`;
      return done([body, ...page.notes, ...walkNote].join("\n"), {
        mode,
        filenames: page.items,
        numFiles: page.items.length,
      });
    }
    case "content": {
      const all = formatGrepContent(found.files, {
        cwd: deps.cwd,
        lineNumbers: operation.lineNumbers,
      });
      const page = pageOf(all, operation, "lines");
      const content = page.items.join("\n");
      const filenames = found.files.map(shown);
      return done(
        [content === "" ? "No matches found" : content, ...page.notes, ...walkNote].join("\n"),
        {
          mode,
          filenames,
          numFiles: filenames.length,
          content,
          numLines: page.items.length,
        },
      );
    }
    case "count": {
      const all = found.files.map((file) => `${shown(file)}:${file.count}`);
      const page = pageOf(all, operation, "lines");
      const content = page.items.join("\n");
      const matches = found.files.reduce((sum, file) => sum + file.count, 0);
      const summary = found.files.length === 0
        ? "No matches found"
        : `${content}\n\nFound ${plural(matches, "matching line")} in ${
          plural(found.files.length, "file")
        }`;
      return done([summary, ...page.notes, ...walkNote].join("\n"), {
        mode,
        filenames: found.files.map(shown),
        numFiles: found.files.length,
        content,
        numLines: page.items.length,
      });
    }
    default:
      return mode satisfies never;
  }
}

/** `offset` and `head_limit` applied (the default limit without one), and a note when cut. */
function pageOf(
  all: readonly string[],
  operation: Pick<GrepOperation, "offset" | "headLimit">,
  what: "files" | "lines",
): { items: string[]; notes: string[] } {
  const limit = operation.headLimit ?? GREP_DEFAULT_LIMIT;
  const from = Math.min(operation.offset, all.length);
  const items = all.slice(from, from + limit);
  const next = from + items.length;
  if (from === 0 && next === all.length) return { items, notes: [] };
  const range = items.length === 0
    ? `no ${what} past offset ${operation.offset}: there are ${all.length}`
    : `showing ${what} ${from + 1}-${next} of ${all.length}`;
  const more = next < all.length ? `: use offset ${next} to see more` : "";
  return { items, notes: [`[${range}${more}]`] };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
