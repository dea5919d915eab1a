/**
 * Searching file contents with a regular expression, as ripgrep does for Claude Code's Grep:
 * below a directory through the confined walk (file_walk.ts: no symlinks, `.gitignore` honoured)
 * or in one file; narrowed by a glob or a file type; binary files (a NUL byte) skipped. Each
 * file's matching lines are counted and, for the `content` mode, kept with their context lines.
 * Files come newest first (ties by path), as Claude Code lists them. JavaScript's regular
 * expressions stand in for ripgrep's: the everyday syntax (`\w`, `\b`, classes, groups,
 * alternation) is the same; `^` and `$` match at line ends.
 */
import { basename } from "node:path";
import { errorMessage } from "../error.ts";
import { compileGlob } from "../glob_pattern.ts";
import { type ConfinedBytes, readConfinedBytes } from "./confined_read.ts";
import { compareNames, modifiedTime, resolveSearchStart, walkFiles } from "./file_walk.ts";
import { FILE_TYPE_NAMES, fileTypeFilter } from "./grep_file_types.ts";
import type { GrepOperation } from "./tool_operation.ts";
import { shownPath } from "./tool_presentation.ts";

/** A file larger than this is not searched (as the read tool will not read it whole). */
const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;

export interface GrepLine {
  /** 1-based. */
  readonly number: number;
  /** Without its line ending. */
  readonly text: string;
  /** A matching line; false for a context line. */
  readonly match: boolean;
}

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
  const { regex } = compiled;
  const prefilter = !operation.multiline && wholeTextStandsForLines(operation.pattern);
  const filter = fileFilter(operation);
  if (!filter.ok) return filter;
  const place = { cwd: request.cwd, roots: request.roots };
  const start = await resolveSearchStart(operation.path, place);
  if (!start.ok) return { ok: false, message: start.message };
  const maxBytes = request.maxFileBytes ?? MAX_GREP_FILE_BYTES;
  const keepLines = operation.outputMode === "content";
  const files: GrepFileResult[] = [];
  let filesSearched = 0;
  const decoder = new TextDecoder();
  /** The file's matches, if it has any and is text. */
  const search = (read: ConfinedBytes) => {
    if (!read.ok || read.bytes.includes(0)) return undefined;
    filesSearched += 1;
    const text = decoder.decode(read.bytes);
    if (prefilter && !regex.test(text)) return undefined;
    const found = searchText(text, regex, operation, keepLines);
    return found.count > 0 ? found : undefined;
  };
  let walkCapped = false;
  if (start.isDirectory) {
    const walk = await walkFiles(start.path, {
      ...place,
      signal: request.signal,
      maxEntries: request.maxEntries,
    }, async (file) => {
      if (!filter.accepts(file.relative)) return;
      const found = search(await file.readBytes(maxBytes, request.signal));
      if (found) files.push({ path: file.path, ...found, mtimeMs: file.modifiedTime() });
    });
    if (walk.cancelled) return { ok: false, message: "The search was cancelled" };
    walkCapped = walk.capped;
  } else {
    // A file named outright is searched whatever the glob and type say, as ripgrep does.
    const found = search(await readConfinedBytes(start.path, place, maxBytes, request.signal));
    if (found) files.push({ path: start.path, ...found, mtimeMs: await modifiedTime(start.path) });
  }
  if (request.signal?.aborted) return { ok: false, message: "The search was cancelled" };
  files.sort((a, b) => b.mtimeMs - a.mtimeMs || compareNames(a.path, b.path));
  return { ok: true, files, filesSearched, walkCapped };
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
  const nested = nestedQuantifier(pattern);
  if (nested !== undefined) {
    return {
      ok: false,
      message: `The pattern "${pattern}" repeats a group that itself repeats (${nested}): in ` +
        "JavaScript's regular expressions that can take exponential time, so it is not run; " +
        "write it without the outer repetition (e.g. (a+)+ as a+)",
    };
  }
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
 * Whether a text the regex finds nothing in has no matching line either, so that one test of
 * the whole text can stand for a test of each line (most files do not match). True unless the
 * pattern looks around (`(?=`, `(?!`, `(?<=`, `(?<!`), which could see past a line's end: any
 * other match within a line is one within the text too, since `^`, `$` (the `m` flag) and `\b`
 * take a line break in the text (`\n`, or the `\r` a line is tested without) as they take the
 * start or end of the line alone. A pattern that only seems to look around (`\(?=`) merely
 * goes without the shortcut.
 */
function wholeTextStandsForLines(pattern: string): boolean {
  return !/\(\?<?[=!]/.test(pattern);
}

/** The matching lines of a text, and with `keepLines` them and their context. */
function searchText(
  text: string,
  regex: RegExp,
  operation: Pick<GrepOperation, "multiline" | "before" | "after">,
  keepLines: boolean,
): { count: number; lines: GrepLine[] } {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const matched = operation.multiline
    ? multilineMatches(text, regex)
    : new Set(lines.flatMap((line, i) => regex.test(withoutCr(line)) ? [i] : []));
  if (!keepLines || matched.size === 0) return { count: matched.size, lines: [] };
  const shown = new Set<number>();
  // Matches in order, each adding only lines past the last one shown: linear in the lines,
  // whatever -A/-B/-C the model asks for.
  let shownUpTo = -1;
  for (const i of [...matched].sort((a, b) => a - b)) {
    const from = Math.max(0, i - operation.before, shownUpTo + 1);
    const to = Math.min(lines.length - 1, i + operation.after);
    for (let j = from; j <= to; j++) shown.add(j);
    shownUpTo = Math.max(shownUpTo, to);
  }
  const numbers = [...shown].sort((a, b) => a - b);
  return {
    count: matched.size,
    lines: numbers.map((i) => ({
      number: i + 1,
      text: withoutCr(lines[i] ?? ""),
      match: matched.has(i),
    })),
  };
}

/** The 0-based lines any match of a `g` regex touches, matches spanning lines included. */
function multilineMatches(text: string, regex: RegExp): Set<number> {
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i + 1 < text.length) lineStarts.push(i + 1);
  }
  const lineAt = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (lineStarts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const matched = new Set<number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (start >= text.length && text.endsWith("\n")) break;
    const last = lineAt(Math.max(start, end - 1));
    for (let line = lineAt(start); line <= last; line++) matched.add(line);
    if (match[0].length === 0) regex.lastIndex += 1;
  }
  return matched;
}

function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
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

/**
 * The first group that is repeated and holds a repetition (`(a+)+`, `(\\w*)*`, `(?:x{2,})+`), the
 * shape behind catastrophic backtracking; undefined when there is none. Escapes and classes are
 * skipped; a `{n}` of a fixed count is not a repetition.
 */
function nestedQuantifier(pattern: string): string | undefined {
  /** Per open group: where it starts and whether something inside it repeats. */
  const open: { start: number; repeats: boolean }[] = [];
  let lastGroup: { start: number; repeats: boolean } | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      i += 1;
      lastGroup = undefined;
    } else if (char === "[") {
      for (i += 1; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i += 1;
      lastGroup = undefined;
    } else if (char === "(") {
      open.push({ start: i, repeats: false });
      lastGroup = undefined;
    } else if (char === ")") {
      lastGroup = open.pop();
      if (lastGroup?.repeats && open.length > 0) open[open.length - 1]!.repeats = true;
    } else {
      const quantifier = repetitionAt(pattern, i);
      if (quantifier > 0) {
        if (lastGroup?.repeats) return pattern.slice(lastGroup.start, i + quantifier);
        if (open.length > 0) open[open.length - 1]!.repeats = true;
        i += quantifier - 1;
      }
      lastGroup = undefined;
    }
  }
  return undefined;
}

/** The length of a repeating quantifier at `i` (`*`, `+`, `{n,}`, `{n,m}` with m > 1), or 0. */
function repetitionAt(pattern: string, i: number): number {
  const char = pattern[i];
  if (char === "*" || char === "+") return 1;
  if (char !== "{") return 0;
  const match = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(i));
  if (match === null) return 0;
  const repeats = match[2] !== undefined && (match[3] === "" || Number(match[3]) > 1);
  return repeats ? match[0].length : 0;
}
