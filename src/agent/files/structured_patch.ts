/**
 * A line diff in the shape Claude Code reports in `structuredPatch` (Write and Edit's
 * `tool_response`): unified-diff hunks whose lines start with " ", "-" or "+" and carry no line
 * ending. A final "\n" ends the last line rather than starting another; a last line without one
 * is followed by "\ No newline at end of file", as in a unified diff.
 *
 * The diff is a shortest edit script (Myers' O(ND) algorithm in its linear-space form), with each
 * run of changes shown as its removed lines before its added ones.
 */

export interface PatchHunk {
  /** 1-based first old line of the hunk (the line after the insertion point when it has none). */
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: string[];
}

const NO_NEWLINE_MARKER = "\\ No newline at end of file";

type OpKind = " " | "-" | "+";
interface Op {
  readonly kind: OpKind;
  /** The line with its ending, if it has one. */
  readonly line: string;
}

export function structuredPatch(oldText: string, newText: string, context = 3): PatchHunk[] {
  if (oldText === newText) return [];
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  return hunksOf(diffLines(oldLines, newLines), Math.max(0, context));
}

/** Lines with their "\n" kept, so that "a" and "a\n" differ as in a unified diff. */
function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=\n)/);
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  // Lines become numbers once, so the search compares integers.
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const ai = Int32Array.from(a, idOf);
  const bi = Int32Array.from(b, idOf);
  const ops: Op[] = [];
  const script: EditScript = {
    equal: (x) => ops.push({ kind: " ", line: a[x] ?? "" }),
    remove: (x) => ops.push({ kind: "-", line: a[x] ?? "" }),
    insert: (y) => ops.push({ kind: "+", line: b[y] ?? "" }),
  };
  compare(ai, 0, ai.length, bi, 0, bi.length, script, { left: DIFF_BUDGET });
  return removalsFirst(ops);
}

/**
 * Diagonal steps the search may take in all. Two long, wholly different texts cost O(N·D); past
 * the budget the rest is shown as removed and added whole, which is still a correct diff.
 */
const DIFF_BUDGET = 20_000_000;

interface Budget {
  left: number;
}

interface EditScript {
  equal(x: number): void;
  remove(x: number): void;
  insert(y: number): void;
}

/** Emits the edit script turning `a[aLo, aHi)` into `b[bLo, bHi)`, in order. */
function compare(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  out: EditScript,
  budget: Budget,
): void {
  let prefixEnd = aLo;
  while (
    prefixEnd < aHi && bLo + (prefixEnd - aLo) < bHi && a[prefixEnd] === b[bLo + prefixEnd - aLo]
  ) {
    out.equal(prefixEnd);
    prefixEnd += 1;
  }
  bLo += prefixEnd - aLo;
  aLo = prefixEnd;
  let suffix = 0;
  while (aHi - suffix > aLo && bHi - suffix > bLo && a[aHi - suffix - 1] === b[bHi - suffix - 1]) {
    suffix += 1;
  }
  const aEnd = aHi - suffix;
  const bEnd = bHi - suffix;
  const split = aLo === aEnd || bLo === bEnd
    ? undefined
    : splitPoint(a, aLo, aEnd, b, bLo, bEnd, budget);
  if (split === undefined) {
    for (let x = aLo; x < aEnd; x++) out.remove(x);
    for (let y = bLo; y < bEnd; y++) out.insert(y);
  } else {
    // Both sides were non-empty and differ at both ends: the split lies strictly inside, so
    // each half is a smaller problem.
    const [x, y] = split;
    compare(a, aLo, x, b, bLo, y, out, budget);
    compare(a, x, aEnd, b, y, bEnd, out, budget);
  }
  for (let x = aEnd; x < aHi; x++) out.equal(x);
}

/**
 * A point on a shortest edit path, found by searching from both ends at once until the paths
 * meet (Myers 1986, section 4b), which keeps memory linear. Diagonals whose path runs off the
 * grid are dropped from the search, so no value from outside the grid is ever compared.
 */
function splitPoint(
  a: Int32Array,
  aLo: number,
  aHi: number,
  b: Int32Array,
  bLo: number,
  bHi: number,
  budget: Budget,
): [number, number] | undefined {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const delta = n - m;
  const odd = (delta & 1) !== 0;
  const maxD = Math.ceil((n + m) / 2);
  const offset = maxD + 1;
  const size = 2 * maxD + 3;
  // forward[offset + k]: furthest x reached on diagonal k (x - y = k) from the start;
  // backward[offset + k]: the same from the end, in the reversed problem. -1: not reached yet.
  const forward = new Int32Array(size).fill(-1);
  const backward = new Int32Array(size).fill(-1);
  forward[offset + 1] = 0;
  backward[offset + 1] = 0;
  let forwardStart = 0;
  let forwardEnd = 0;
  let backwardStart = 0;
  let backwardEnd = 0;
  const at = (v: Int32Array, k: number) => v[offset + k] ?? -1;
  for (let d = 0; d <= maxD; d++) {
    budget.left -= 2 * d + 2;
    if (budget.left < 0) return undefined;
    for (let k = -d + forwardStart; k <= d - forwardEnd; k += 2) {
      let x = k === -d || (k !== d && at(forward, k - 1) < at(forward, k + 1))
        ? at(forward, k + 1)
        : at(forward, k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x += 1;
        y += 1;
      }
      forward[offset + k] = x;
      if (x > n) forwardEnd += 2;
      else if (y > m) forwardStart += 2;
      else if (odd) {
        const reached = at(backward, delta - k);
        if (reached !== -1 && x >= n - reached) return [aLo + x, bLo + y];
      }
    }
    for (let k = -d + backwardStart; k <= d - backwardEnd; k += 2) {
      let x = k === -d || (k !== d && at(backward, k - 1) < at(backward, k + 1))
        ? at(backward, k + 1)
        : at(backward, k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[aHi - 1 - x] === b[bHi - 1 - y]) {
        x += 1;
        y += 1;
      }
      backward[offset + k] = x;
      if (x > n) backwardEnd += 2;
      else if (y > m) backwardStart += 2;
      else if (!odd) {
        const reached = at(forward, delta - k);
        if (reached !== -1 && reached >= n - x) return [aHi - x, bHi - y];
      }
    }
  }
  // Unreachable: the searches meet by d = maxD.
  throw new Error("structuredPatch: the diff searches did not meet");
}

/** Each run of changes as its removals, then its insertions (a unified diff's habit). */
function removalsFirst(ops: readonly Op[]): Op[] {
  const out: Op[] = [];
  let removed: Op[] = [];
  let inserted: Op[] = [];
  const flush = () => {
    out.push(...removed, ...inserted);
    removed = [];
    inserted = [];
  };
  for (const op of ops) {
    if (op.kind === "-") removed.push(op);
    else if (op.kind === "+") inserted.push(op);
    else {
      flush();
      out.push(op);
    }
  }
  flush();
  return out;
}

/**
 * Groups the changes into hunks with `context` unchanged lines around them; changes at most
 * twice the context apart share a hunk.
 */
function hunksOf(ops: readonly Op[], context: number): PatchHunk[] {
  // Runs of changes as [start, end) indices into ops.
  const runs: [number, number][] = [];
  for (let i = 0; i < ops.length; i++) {
    if (ops[i]!.kind === " ") continue;
    const start = i;
    while (i < ops.length && ops[i]!.kind !== " ") i += 1;
    const last = runs[runs.length - 1];
    if (last !== undefined && start - last[1] <= 2 * context) last[1] = i;
    else runs.push([start, i]);
  }
  // Line numbers (0-based) before each op, on each side.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine += 1;
    if (op.kind !== "-") newLine += 1;
  }
  const oldTotal = oldLine;
  const newTotal = newLine;
  return runs.map(([start, end]) => {
    const from = Math.max(0, start - context);
    const to = Math.min(ops.length, end + context);
    const lines: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    for (let i = from; i < to; i++) {
      const op = ops[i]!;
      lines.push(op.kind + op.line.replace(/\n$/, ""));
      if (op.kind !== "+") oldCount += 1;
      if (op.kind !== "-") newCount += 1;
      const lastOld = op.kind !== "+" && oldAt[i]! === oldTotal - 1;
      const lastNew = op.kind !== "-" && newAt[i]! === newTotal - 1;
      if ((lastOld || lastNew) && !op.line.endsWith("\n")) lines.push(NO_NEWLINE_MARKER);
    }
    return {
      oldStart: oldAt[from]! + 1,
      oldLines: oldCount,
      newStart: newAt[from]! + 1,
      newLines: newCount,
      lines,
    };
  });
}
