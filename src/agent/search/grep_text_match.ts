/**
 * What a grep finds in one file's bytes: none of it when the file is binary (a NUL byte), else
 * its matching lines counted and, for the `content` mode, kept with their context lines. Pure:
 * it runs in the matcher process (grep_matcher_process.ts), where a pattern that backtracks
 * without end can be stopped, never in the agent itself.
 */

export interface GrepLine {
  /** 1-based. */
  readonly number: number;
  /** Without its line ending. */
  readonly text: string;
  /** A matching line; false for a context line. */
  readonly match: boolean;
}

/** How a grep matches: everything but the files, sent to the matcher process once. */
export interface MatchSpec {
  /** The regular expression's source and flags, as compiled where the pattern was checked. */
  readonly source: string;
  readonly flags: string;
  readonly multiline: boolean;
  /** Context lines before and after each match (`content` mode). */
  readonly before: number;
  readonly after: number;
  /** Keep the lines (`content` mode), not only count them. */
  readonly keepLines: boolean;
}

export interface FileMatch {
  /** False for a binary file, which is not searched. */
  readonly searched: boolean;
  /** Matching lines. */
  readonly count: number;
  /** Matching and context lines in order; only filled in when `keepLines`. */
  readonly lines: GrepLine[];
}

/** What most files get: the same object each time. */
export const BINARY: FileMatch = { searched: false, count: 0, lines: [] };
export const NO_MATCH: FileMatch = { searched: true, count: 0, lines: [] };

/** A matcher of files' bytes for one spec: the regex compiled once, a decoder kept. */
export function fileMatcher(spec: MatchSpec): (bytes: Uint8Array) => FileMatch {
  const regex = new RegExp(spec.source, spec.flags);
  const prefilter = !spec.multiline && wholeTextStandsForLines(spec.source);
  const decoder = new TextDecoder();
  return (bytes) => {
    if (bytes.includes(0)) return BINARY;
    const text = decoder.decode(bytes);
    if (prefilter && !regex.test(text)) return NO_MATCH;
    const found = searchText(text, regex, spec);
    return found.count === 0 ? NO_MATCH : { searched: true, ...found };
  };
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
  spec: Pick<MatchSpec, "multiline" | "before" | "after" | "keepLines">,
): { count: number; lines: GrepLine[] } {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const matched = spec.multiline
    ? multilineMatches(text, regex)
    : new Set(lines.flatMap((line, i) => regex.test(withoutCr(line)) ? [i] : []));
  if (!spec.keepLines || matched.size === 0) return { count: matched.size, lines: [] };
  const shown = new Set<number>();
  // Matches in order, each adding only lines past the last one shown: linear in the lines,
  // whatever -A/-B/-C the model asks for.
  let shownUpTo = -1;
  for (const i of [...matched].sort((a, b) => a - b)) {
    const from = Math.max(0, i - spec.before, shownUpTo + 1);
    const to = Math.min(lines.length - 1, i + spec.after);
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
