/**
 * Expected and actual values of a failed expectation, as lines a reader can compare: the two
 * values one above the other when each fits on a line, else a line diff (multi-line strings line
 * by line, objects of file contents key by key, anything else as indented JSON; a regular
 * expression above the text it did not match).
 */

export type DiffOp = "same" | "expected" | "actual";

export interface DiffLine {
  readonly op: DiffOp;
  readonly text: string;
}

/** Past this many line pairs the diff gives up on alignment and shows both sides whole. */
const MAX_ALIGNED_CELLS = 1_000_000;

/**
 * The lines that show how `actual` differs from `expected`. Two objects holding texts over
 * several lines (file contents) are compared key by key, each text line by line, and the keys
 * that are equal are left out.
 */
export function diffValues(expected: unknown, actual: unknown): DiffLine[] {
  if (isRecord(expected) && isRecord(actual) && holdsMultilineText(expected, actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((key) => {
      const [e, a] = [expected[key], actual[key]];
      if (JSON.stringify(e) === JSON.stringify(a)) return [];
      const lines = diffValues(e, a).map((l) => ({ op: l.op, text: `  ${l.text}` }));
      return [{ op: "same" as const, text: `${JSON.stringify(key)}:` }, ...lines];
    });
  }
  const pattern = regexOf(expected);
  if (pattern !== undefined) {
    return [
      { op: "expected", text: `/${pattern.source}/` },
      ...showValue(actual).map((text) => ({ op: "actual" as const, text })),
    ];
  }
  return diffLines(showValue(expected), showValue(actual));
}

/**
 * A value as the lines it is shown with: a multi-line string as its own lines, a one-line string
 * quoted (so spaces and escapes show), a regex expectation as `/source/`, anything else as
 * indented JSON.
 */
export function showValue(value: unknown): string[] {
  if (typeof value === "string") {
    return value.includes("\n") ? value.split("\n") : [JSON.stringify(value)];
  }
  const pattern = regexOf(value);
  if (pattern !== undefined) return [`/${pattern.source}/`];
  if (value === undefined) return ["undefined"];
  let json: string | undefined;
  try {
    json = JSON.stringify(value, null, 2);
  } catch {
    json = undefined;
  }
  return (json ?? String(value)).split("\n");
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof RegExp);
}

function holdsMultilineText(...records: readonly Readonly<Record<string, unknown>>[]): boolean {
  return records.some((r) =>
    Object.values(r).some((v) => typeof v === "string" && v.includes("\n"))
  );
}

/** `{"matches": "<regex>"}` (the scenario form) or a RegExp, as a RegExp-like value. */
function regexOf(value: unknown): { source: string } | undefined {
  if (value instanceof RegExp) return value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== "matches") return undefined;
  const source: unknown = Object.values(value)[0];
  return typeof source === "string" ? { source } : undefined;
}

/** A shortest line diff (longest common subsequence), expected lines before actual ones. */
export function diffLines(expected: readonly string[], actual: readonly string[]): DiffLine[] {
  let start = 0;
  while (start < expected.length && start < actual.length && expected[start] === actual[start]) {
    start++;
  }
  let endE = expected.length;
  let endA = actual.length;
  while (endE > start && endA > start && expected[endE - 1] === actual[endA - 1]) {
    endE--;
    endA--;
  }
  const same = (text: string): DiffLine => ({ op: "same", text });
  const head = expected.slice(0, start).map(same);
  const tail = expected.slice(endE).map(same);
  const e = expected.slice(start, endE);
  const a = actual.slice(start, endA);
  return [...head, ...alignMiddle(e, a), ...tail];
}

function alignMiddle(e: readonly string[], a: readonly string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ op: "expected", text });
  const added = (text: string): DiffLine => ({ op: "actual", text });
  if (e.length === 0 || a.length === 0 || e.length * a.length > MAX_ALIGNED_CELLS) {
    return [...e.map(removed), ...a.map(added)];
  }
  // lcs[i][j]: length of the longest common subsequence of e[i..] and a[j..].
  const width = a.length + 1;
  const lcs = new Uint32Array((e.length + 1) * width);
  for (let i = e.length - 1; i >= 0; i--) {
    for (let j = a.length - 1; j >= 0; j--) {
      lcs[i * width + j] = e[i] === a[j]
        ? lcs[(i + 1) * width + j + 1]! + 1
        : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < e.length && j < a.length) {
    if (e[i] === a[j]) {
      out.push({ op: "same", text: e[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      out.push(removed(e[i++]!));
    } else {
      out.push(added(a[j++]!));
    }
  }
  while (i < e.length) out.push(removed(e[i++]!));
  while (j < a.length) out.push(added(a[j++]!));
  return out;
}

/** The marker each line is printed with. */
export const DIFF_MARKS: Readonly<Record<DiffOp, string>> = {
  same: " ",
  expected: "-",
  actual: "+",
};

/** Beyond this, a diff is cut and says how many lines it left out. */
export const MAX_DIFF_LINES = 120;

/**
 * How a failure shows its values: two one-line values one above the other
 * (`expected: "allow"` / `actual:   "deny"`), anything longer as a line diff.
 */
export type Comparison =
  | { readonly kind: "pair"; readonly expected: string; readonly actual: string }
  | { readonly kind: "diff"; readonly lines: readonly DiffLine[] };

export function compareValues(expected: unknown, actual: unknown): Comparison {
  const shownExpected = showValue(expected);
  const shownActual = showValue(actual);
  if (shownExpected.length === 1 && shownActual.length === 1) {
    return { kind: "pair", expected: shownExpected[0]!, actual: shownActual[0]! };
  }
  return { kind: "diff", lines: diffValues(expected, actual) };
}

/** The labels of a pair, padded to the same width. */
export const PAIR_LABELS = { expected: "expected: ", actual: "actual:   " } as const;

/**
 * The comparison as plain text lines: a pair, or a `- expected` / `+ actual` legend, a blank
 * line, then each line with its marker (at most `MAX_DIFF_LINES`).
 */
export function plainDiff(expected: unknown, actual: unknown): string[] {
  const comparison = compareValues(expected, actual);
  if (comparison.kind === "pair") {
    return [PAIR_LABELS.expected + comparison.expected, PAIR_LABELS.actual + comparison.actual];
  }
  const { lines } = comparison;
  const shown = lines.slice(0, MAX_DIFF_LINES).map(markLine);
  if (lines.length > MAX_DIFF_LINES) shown.push(`… ${lines.length - MAX_DIFF_LINES} more lines`);
  return ["- expected", "+ actual", "", ...shown];
}

/** A diff line with its marker, and no trailing spaces where they tell nothing. */
export function markLine(line: DiffLine): string {
  if (line.text === "") return line.op === "same" ? "" : DIFF_MARKS[line.op];
  const text = `${DIFF_MARKS[line.op]} ${line.text}`;
  return line.op === "same" ? text.trimEnd() : text;
}
