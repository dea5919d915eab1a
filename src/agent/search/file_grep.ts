/**
 * Searching file contents with a regular expression, as ripgrep does for Claude Code's Grep:
 * below a directory through the confined walk (file_walk.ts: no symlinks, `.gitignore` honoured)
 * or in one file; narrowed by a glob or a file type; binary files (a NUL byte) skipped. Each
 * file's matching lines are counted and, for the `content` mode, kept with their context lines.
 * Files come newest first (ties by path), as Claude Code lists them. JavaScript's regular
 * expressions stand in for ripgrep's: the everyday syntax (`\w`, `\b`, classes, groups,
 * alternation) is the same; `^` and `$` match at line ends. The pattern is the model's: it only
 * ever runs in a matcher process (grep_matcher.ts) that is killed when the search's matching
 * time is up or the search is cancelled, never in the agent, so no pattern can hold it up.
 */
import { basename } from "node:path";
import { errorMessage } from "../../error.ts";
import { compileGlob } from "../../glob_pattern.ts";
import { readConfinedBytes } from "../../os/files/confined_read.ts";
import { compareNames, modifiedTime, resolveSearchStart, walkFiles } from "./file_walk.ts";
import { FILE_TYPE_NAMES, fileTypeFilter } from "./grep_file_types.ts";
import { GREP_MATCH_TIMEOUT_MS, GrepMatcher, type MatchingStop } from "./grep_matcher.ts";
import type { GrepLine } from "./grep_text_match.ts";
import type { GrepOperation } from "../tools/tool_operation.ts";
import { shownPath } from "../tools/tool_presentation.ts";

/** A file larger than this is not searched (as the read tool will not read it whole). */
const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;

export interface GrepFileResult {
  /** Absolute. */
  readonly path: string;
  /** Matching lines. */
  readonly count: number;
  /** Matching and context lines in order; only filled in `content` mode. */
  readonly lines: GrepLine[];
  readonly mtimeMs: number;
}

export interface GrepRequest {
  readonly cwd: string;
  readonly roots: readonly string[];
  readonly signal?: AbortSignal;
  /** Entries the walk may look at (file_walk.ts's default when absent). */
  readonly maxEntries?: number;
  readonly maxFileBytes?: number;
  /** Matching time allowed, in ms (`GREP_MATCH_TIMEOUT_MS` when absent). */
  readonly matchTimeoutMs?: number;
}

export type GrepResult =
  | {
    readonly ok: true;
    /** Files with at least one match, newest first. */
    readonly files: GrepFileResult[];
    readonly filesSearched: number;
    /** The walk stopped at its entry cap: files beyond it were not searched. */
    readonly walkCapped: boolean;
  }
  /** A whole sentence for the model. */
  | { readonly ok: false; readonly message: string };

export async function grepFiles(
  operation: GrepOperation,
  request: GrepRequest,
): Promise<GrepResult> {
  const compiled = compilePattern(operation.pattern, operation);
  if (!compiled.ok) return compiled;
  const filter = fileFilter(operation);
  if (!filter.ok) return filter;
  const place = { cwd: request.cwd, roots: request.roots };
  const start = await resolveSearchStart(operation.path, place);
  if (!start.ok) return { ok: false, message: start.message };
  const maxBytes = request.maxFileBytes ?? MAX_GREP_FILE_BYTES;
  const timeoutMs = request.matchTimeoutMs ?? GREP_MATCH_TIMEOUT_MS;
  const matcher = new GrepMatcher({
    source: compiled.regex.source,
    flags: compiled.regex.flags,
    multiline: operation.multiline,
    before: operation.before,
    after: operation.after,
    keepLines: operation.outputMode === "content",
  }, { cwd: request.cwd, timeoutMs, signal: request.signal });
  try {
    // The matcher's signal is aborted by the request's too, and when matching stops early.
    const { signal } = matcher;
    let walkCapped = false;
    if (start.isDirectory) {
      const walk = await walkFiles(start.path, {
        ...place,
        signal,
        maxEntries: request.maxEntries,
      }, async (file) => {
        if (!filter.accepts(file.relative)) return;
        const read = await file.readBytes(maxBytes, signal);
        if (read.ok) {
          await matcher.add({ path: file.path, mtimeMs: file.modifiedTime() }, read.bytes);
        }
      });
      walkCapped = walk.capped;
    } else {
      // A file named outright is searched whatever the glob and type say, as ripgrep does.
      const read = await readConfinedBytes(start.path, place, maxBytes, signal);
      if (read.ok) {
        await matcher.add(
          { path: start.path, mtimeMs: await modifiedTime(start.path) },
          read.bytes,
        );
      }
    }
    const matched = await matcher.finish();
    if (!matched.ok) {
      return { ok: false, message: stopMessage(matched, operation.pattern, request) };
    }
    if (request.signal?.aborted) return { ok: false, message: CANCELLED };
    const files: GrepFileResult[] = matched.files;
    files.sort((a, b) => b.mtimeMs - a.mtimeMs || compareNames(a.path, b.path));
    return { ok: true, files, filesSearched: matched.filesSearched, walkCapped };
  } finally {
    await matcher.close();
  }
}

const CANCELLED = "The search was cancelled";

/** What the model is told when matching stopped before every file was matched. */
function stopMessage(stop: MatchingStop, pattern: string, request: GrepRequest): string {
  switch (stop.reason) {
    case "cancelled":
      return CANCELLED;
    case "timeout": {
      const seconds = (request.matchTimeoutMs ?? GREP_MATCH_TIMEOUT_MS) / 1000;
      const where = stop.path === undefined ? "" : ` on "${shownPath(stop.path, request.cwd)}"`;
      return `The pattern "${pattern}" took longer than ${seconds} s${where}, so the search ` +
        "was stopped: simplify it (a pattern that can match the same text in many ways, such " +
        "as (a|aa)*, (a+)+ or (.*x){20}, can take exponential time on a long line), or narrow " +
        "the path, glob or type";
    }
    case "failed":
      return `The search failed: ${stop.detail}`;
    default:
      return stop satisfies never;
  }
}

export type CompiledPattern =
  | { readonly ok: true; readonly regex: RegExp }
  | { readonly ok: false; readonly message: string };

/**
 * The pattern as a JavaScript regular expression: with the `u` flag where it compiles so
 * (`\p{L}`), without it where it does not (`interface{}`, `\-`), which ripgrep accepts too.
 */
function compilePattern(
  pattern: string,
  options: { readonly ignoreCase: boolean; readonly multiline: boolean },
): CompiledPattern {
  const flags = (options.ignoreCase ? "i" : "") + (options.multiline ? "gms" : "m");
  try {
    return { ok: true, regex: new RegExp(pattern, flags + "u") };
  } catch {
    // Tried again without `u` below; its message is the one reported.
  }
  try {
    return { ok: true, regex: new RegExp(pattern, flags) };
  } catch (error) {
    const detail = errorMessage(error).replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
    return {
      ok: false,
      message: `Invalid regular expression "${pattern}": ${detail} (escape ( ) [ ] { } . * + ? ` +
        "| ^ $ \\ with a backslash to match them as text)",
    };
  }
}

type FileFilter =
  | { readonly ok: true; readonly accepts: (relative: string) => boolean }
  | { readonly ok: false; readonly message: string };

/** `glob` (several separated by spaces or commas, `!` to exclude) and `fileType` together. */
function fileFilter(operation: GrepOperation): FileFilter {
  const tests: ((relative: string) => boolean)[] = [];
  if (operation.fileType !== undefined && operation.fileType.trim() !== "") {
    const byType = fileTypeFilter(operation.fileType);
    if (byType === undefined) {
      return {
        ok: false,
        message: `Unknown file type "${operation.fileType}": use one of ${
          FILE_TYPE_NAMES.join(", ")
        }, or a glob such as "*.ext"`,
      };
    }
    tests.push(byType);
  }
  if (operation.glob !== undefined && operation.glob.trim() !== "") {
    const globs = splitGlobs(operation.glob);
    const included = globs.filter((glob) => !glob.startsWith("!")).map(globTest);
    const excluded = globs.filter((glob) => glob.startsWith("!")).map((g) => globTest(g.slice(1)));
    tests.push((relative) =>
      (included.length === 0 || included.some((test) => test(relative))) &&
      !excluded.some((test) => test(relative))
    );
  }
  return { ok: true, accepts: (relative) => tests.every((test) => test(relative)) };
}

/** A glob with a `/` is matched against the path below the search root, else the file name. */
function globTest(glob: string): (relative: string) => boolean {
  const regex = compileGlob(glob.replace(/^(?:\.\/)+/, ""));
  return glob.includes("/")
    ? (relative) => regex.test(relative)
    : (relative) => regex.test(basename(relative));
}

/** Globs separated by spaces, or by commas outside braces (`*.{ts,tsx}` stays one). */
function splitGlobs(text: string): string[] {
  const globs: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of text) {
    if (char === "{") depth += 1;
    if (char === "}" && depth > 0) depth -= 1;
    if (/\s/.test(char) || (char === "," && depth === 0)) {
      if (current !== "") globs.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (current !== "") globs.push(current);
  return globs;
}

/**
 * `content` mode's lines as ripgrep prints them: `path:N:text` for a match (`path:text`
 * without line numbers), `path-N-text` for a context line, `--` between groups that do not
 * follow on (only when context lines were asked for). Paths relative to the cwd.
 */
export function formatGrepContent(
  files: readonly GrepFileResult[],
  options: { readonly cwd: string; readonly lineNumbers: boolean; readonly context?: boolean },
): string[] {
  const withContext = options.context ??
    files.some((file) => file.lines.some((line) => !line.match));
  const out: string[] = [];
  for (const file of files) {
    const shown = shownPath(file.path, options.cwd);
    let previous: number | undefined;
    for (const line of file.lines) {
      const gap = previous === undefined ? out.length > 0 : line.number !== previous + 1;
      if (withContext && gap) out.push("--");
      const mark = line.match ? ":" : "-";
      out.push(
        options.lineNumbers
          ? `${shown}${mark}${line.number}${mark}${line.text}`
          : `${shown}${mark}${line.text}`,
      );
      previous = line.number;
    }
  }
  return out;
}
