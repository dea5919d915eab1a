/**
 * The loop guards of a turn: what stops a model that repeats one tool call (small models do,
 * until the round limit) sooner than the round limit, and says why.
 *
 * - A call identical to one refused earlier in the turn (by a PreToolUse hook, a permission rule
 *   or hook, or the user) is neither asked about nor run again, and no hook fires for it: the
 *   model reads "Already refused: <the reason it was given>" at once. The turn ends with a notice
 *   naming the call when the model has repeated it `REFUSED_REPEAT_LIMIT` times. (Claude Code
 *   would fire PreToolUse again; the guard is for models that do not read a refusal.)
 * - A call identical to the call just before it, with the same result, is answered "Unchanged:
 *   same result as the previous call" instead of the result again, and the turn ends with a
 *   notice naming it when `UNCHANGED_CALL_LIMIT` such calls came in a row.
 *
 * Identical: the same tool name as the model wrote it, and the same input compared as canonical
 * JSON (an object's keys in any order). Everything here lasts one turn; the round limit
 * (`--max-tool-rounds`) stays the last resort.
 */

/** Repeats of a refused call that end the turn (after the refusal itself). */
export const REFUSED_REPEAT_LIMIT = 3;

/** Identical calls in a row with the same result that end the turn (the first one included). */
export const UNCHANGED_CALL_LIMIT = 4;

/** What the model reads for a repeat of a refused call. */
export function alreadyRefusedText(reason: string): string {
  return `Already refused: ${reason}\nThis same call was refused earlier in this turn, so it ` +
    "was not asked about or run again: do something else, or answer";
}

/** What the model reads for a call that brought the same result as the same call before it. */
export const UNCHANGED_TEXT = "Unchanged: same result as the previous call. Calling it again " +
  "will not change it: use that result, or do something else";

/** Why a call's result is what the guard says rather than the tool's (the transcript's mark). */
export type GuardAnswer = "already_refused" | "unchanged";

/** A call as the guard compares it. */
export interface GuardedCall {
  readonly name: string;
  readonly input: unknown;
}

/** The guards' state for one turn. */
export class LoopGuard {
  readonly #refusals = new Map<string, { reason: string; repeats: number }>();
  #previous: { key: string; outcome: string } | undefined;
  #inARow = 0;
  #endNotice: string | undefined;

  /**
   * Before a call is gated: what the model reads when an identical call was refused earlier in
   * the turn (the repeat is counted); undefined when the call goes on to the gate.
   */
  refused(call: GuardedCall): string | undefined {
    const refusal = this.#refusals.get(callKey(call));
    if (refusal === undefined) return undefined;
    refusal.repeats++;
    // A repeat answered here is no call that ran: the run of unchanged calls starts over.
    this.#previous = undefined;
    this.#inARow = 0;
    if (refusal.repeats >= REFUSED_REPEAT_LIMIT) {
      this.#endNotice ??= "The turn was stopped: the model repeated a refused call " +
        `${refusal.repeats} times (${callWords(call)}), refused earlier in this turn: ` +
        `${firstLine(refusal.reason)}. Send a prompt to tell it what to do instead`;
    }
    return alreadyRefusedText(refusal.reason);
  }

  /** A call a hook, a permission rule or the user refused, with what the model read. */
  denied(call: GuardedCall, reason: string): void {
    const key = callKey(call);
    if (!this.#refusals.has(key)) this.#refusals.set(key, { reason, repeats: 0 });
  }

  /**
   * After a call the gate answered or that ran: "unchanged" when it repeats the call just before
   * it with the same outcome (`status` and the tool's text).
   */
  settled(call: GuardedCall, status: string, text: string): "unchanged" | "new" {
    const key = callKey(call);
    const outcome = `${status}\n${text}`;
    const same = this.#previous?.key === key && this.#previous.outcome === outcome;
    this.#previous = { key, outcome };
    this.#inARow = same ? this.#inARow + 1 : 1;
    if (this.#inARow >= UNCHANGED_CALL_LIMIT) {
      this.#endNotice ??= `The turn was stopped: the model made the same call ${this.#inARow} ` +
        `times in a row and got the same result each time (${callWords(call)}). Send a ` +
        "prompt to tell it what to do next";
    }
    return same ? "unchanged" : "new";
  }

  /** Why the turn ends, once a guard's limit is reached; undefined until then. */
  get endNotice(): string | undefined {
    return this.#endNotice;
  }
}

/** The key two identical calls share: the name, and the input as canonical JSON. */
export function callKey(call: GuardedCall): string {
  return `${call.name}\n${canonicalJson(call.input)}`;
}

/** JSON with every object's keys sorted, so that key order never tells two inputs apart. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value)) ?? "undefined";
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, sorted(item)]));
}

/** A call as a notice names it: `shell {"command":"rm -rf build"}`, its input cut when long. */
export function callWords(call: GuardedCall): string {
  const input = JSON.stringify(call.input) ?? "";
  return `${call.name} ${input.length > 160 ? `${input.slice(0, 159)}…` : input}`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return (line.length > 200 ? `${line.slice(0, 199)}…` : line).replace(/[.:]+$/, "");
}
