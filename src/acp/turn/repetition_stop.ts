/**
 * One generation watched for verbatim repetition (repetition_detector.ts), whatever the backend:
 * its text and its thoughts are read as they stream, and on a repetition the generation alone is
 * stopped (its own signal, which the turn's signal also aborts), what streams after is dropped,
 * and the answer keeps one copy of what was repeated. The turn then ends as at the answer cap
 * (`max_tokens`), saying why: a repetition stop is never taken for the user's cancel.
 */
import { type Repetition, RepetitionDetector } from "./repetition_detector.ts";

export type StreamKind = "text" | "thought";

export interface RepetitionFound {
  readonly stream: StreamKind;
  readonly repetition: Repetition;
  /** Characters streamed (and shown) past what the answer keeps. */
  readonly dropped: number;
}

export class RepetitionStop {
  /** The generation's signal: aborted by the turn's, or by a repetition. */
  readonly signal: AbortSignal;
  readonly #stop = new AbortController();
  readonly #detectors = { text: new RepetitionDetector(), thought: new RepetitionDetector() };
  readonly #streamed = { text: 0, thought: 0 };
  #found: RepetitionFound | undefined;

  constructor(turnSignal: AbortSignal) {
    this.signal = AbortSignal.any([turnSignal, this.#stop.signal]);
  }

  /** The repetition that stopped the generation; undefined while it goes on. */
  get found(): RepetitionFound | undefined {
    return this.#found;
  }

  /**
   * What of `chunk` the answer takes: all of it; once a repetition completes in it, the part up
   * to there (and the generation is stopped); after that, nothing.
   */
  take(stream: StreamKind, chunk: string): string {
    if (this.#found !== undefined) return "";
    const before = this.#streamed[stream];
    const repetition = this.#detectors[stream].push(chunk);
    if (repetition === undefined) {
      this.#streamed[stream] += chunk.length;
      return chunk;
    }
    this.#found = { stream, repetition, dropped: repetition.at - repetition.keep };
    this.#stop.abort();
    return chunk.slice(0, repetition.at - before);
  }

  /** What the user is told of a generation this stopped. */
  notice(): string | undefined {
    if (this.#found === undefined) return undefined;
    const { stream, repetition } = this.#found;
    const where = stream === "text" ? "its answer" : "its thinking";
    return `The model repeated itself, so ${where} was stopped: the same ${
      repetition.unit.length === 1 ? "character" : `${repetition.unit.length} characters`
    } ${repetition.copies} times in a row (${preview(repetition.unit)}). It keeps one copy; ` +
      "what followed, a tool call included, was dropped. Send a prompt to let it go on, or " +
      "try a larger model";
  }
}

/** The unit as the notice quotes it: on one line, and cut when long. */
function preview(unit: string): string {
  const shown = unit.length > 60 ? `${unit.slice(0, 57)}…` : unit;
  return JSON.stringify(shown);
}
