/**
 * Verbatim repetition at the end of a streamed answer: the loop a small model falls into (the
 * same line, sentence or word again and again until its cap), seen while it streams, so that the
 * generation can be stopped there instead of at the cap.
 *
 * Defined on characters, which every backend streams alike. The text's tail *repeats with period
 * p over L characters* when each of its last L − p characters equals the one p before it: L / p
 * copies of one p-character unit, the last possibly in part. A repetition is found at the first
 * point where, for some p of at most `REPETITION_MAX_PERIOD`, the tail holds at least
 * `REPETITION_MIN_COPIES` whole copies and at least `REPETITION_MIN_SPAN` characters.
 *
 * The two thresholds together keep what people write on purpose: a unit said twice (a duplicated
 * paragraph or block) is never cut, nor any repetition shorter than 800 characters — a rule of
 * 120 `=`, 30 identical CSV rows of `0,0,0,0`, a cascade of `}` lines, a table's empty rows, a
 * list of a hundred `0, `. What is cut: a 300-character paragraph at its third copy, a
 * 100-character sentence at its eighth, `abc ` at its two hundredth, 800 newlines.
 *
 * Each character costs one comparison per period (`push` is O(REPETITION_MAX_PERIOD) a
 * character): a running count, for each period, of how many characters in a row have equalled
 * the one that far back.
 */

/** Whole copies of the unit, at least: a unit said twice may be meant. */
export const REPETITION_MIN_COPIES = 3;

/** Characters the repetition spans, at least (about 200 to 270 tokens of text or code). */
export const REPETITION_MIN_SPAN = 800;

/** The longest unit looked for, in characters (a long paragraph). */
export const REPETITION_MAX_PERIOD = 2000;

export interface Repetition {
  /** The repeated unit, as the kept text ends with it. */
  readonly unit: string;
  /** Whole copies of the unit at the end of the text when it was found. */
  readonly copies: number;
  /**
   * How much of the text to keep: what came before the repetition and one copy, cut at the end
   * of a line (else of a word) where the copy has one.
   */
  readonly keep: number;
  /** The length of the text when the repetition was found (where its last copy completed). */
  readonly at: number;
}

export interface RepetitionThresholds {
  readonly minCopies: number;
  readonly minSpan: number;
  readonly maxPeriod: number;
}

const THRESHOLDS: RepetitionThresholds = {
  minCopies: REPETITION_MIN_COPIES,
  minSpan: REPETITION_MIN_SPAN,
  maxPeriod: REPETITION_MAX_PERIOD,
};

/** Watches one stream of text (an answer, or its thoughts) as it grows. */
export class RepetitionDetector {
  readonly #thresholds: RepetitionThresholds;
  /** `runs[p]`: how many characters in a row at the end equal the one p before them. */
  readonly #runs: Int32Array;
  #codes = new Uint16Array(1024);
  #length = 0;
  #found: Repetition | undefined;

  constructor(thresholds: RepetitionThresholds = THRESHOLDS) {
    this.#thresholds = thresholds;
    this.#runs = new Int32Array(thresholds.maxPeriod + 1);
  }

  /** The repetition found so far; once found, nothing more is read. */
  get found(): Repetition | undefined {
    return this.#found;
  }

  /**
   * Reads `chunk` on from the text so far; the repetition when the text, at some character of
   * the chunk, ends in one (the rest of the chunk is not read).
   */
  push(chunk: string): Repetition | undefined {
    if (this.#found !== undefined) return this.#found;
    const { minCopies, minSpan, maxPeriod } = this.#thresholds;
    const runs = this.#runs;
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i);
      const at = this.#append(code);
      const codes = this.#codes;
      const periods = Math.min(maxPeriod, at);
      let period = 0;
      for (let p = 1; p <= periods; p++) {
        const run = codes[at - p] === code ? runs[p]! + 1 : 0;
        runs[p] = run;
        // The periodic tail: the run, and the unit it repeats.
        const span = run + p;
        if (period === 0 && span >= minSpan && span >= minCopies * p) period = p;
      }
      if (period !== 0) {
        const span = runs[period]! + period;
        const keep = copyEnd(codes, at + 1 - span, period);
        this.#found = {
          unit: String.fromCharCode(...codes.subarray(keep - period, keep)),
          copies: Math.floor(span / period),
          keep,
          at: at + 1,
        };
        return this.#found;
      }
    }
    return undefined;
  }

  /** Appends one code unit; its index. */
  #append(code: number): number {
    if (this.#length === this.#codes.length) {
      const grown = new Uint16Array(this.#codes.length * 2);
      grown.set(this.#codes);
      this.#codes = grown;
    }
    this.#codes[this.#length] = code;
    return this.#length++;
  }
}

const NEWLINE = 10;
const WHITESPACE = new Set([9, 10, 13, 32]);

/**
 * Where the first copy of a unit of `period` characters, repeating from `start`, is best cut:
 * where the text before the repetition happens to end like the unit, the repetition starts early
 * (`Okay.\n` before a line ending in `.\n`), so the cut is moved on, by less than a unit, to the
 * end of a line, else of a word.
 */
function copyEnd(codes: Uint16Array, start: number, period: number): number {
  const first = start + period;
  for (const fits of [(c: number) => c === NEWLINE, (c: number) => WHITESPACE.has(c)]) {
    for (let end = first; end < first + period; end++) {
      if (fits(codes[end - 1]!)) return end;
    }
  }
  return first;
}
