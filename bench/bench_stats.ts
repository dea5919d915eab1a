/**
 * The few statistics every benchmark prints: medians of interleaved runs (so a noisy neighbour
 * hurts the baseline and the measured code alike), and one JSON line per figure.
 */

/** `value` to `digits` decimals, as the JSON lines print figures. */
export function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function timeOnce(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs baseline and measured code alternately, after a short warm-up of each. */
export async function measureInterleaved(
  iterations: number,
  baselineFn: () => Promise<void>,
  measuredFn: () => Promise<void>,
): Promise<{ baseline: number[]; measured: number[] }> {
  const warmUp = Math.min(30, iterations);
  for (let i = 0; i < warmUp; i++) {
    await baselineFn();
    await measuredFn();
  }
  const baseline: number[] = [];
  const measured: number[] = [];
  for (let i = 0; i < iterations; i++) {
    if (i % 2 === 0) {
      baseline.push(await timeOnce(baselineFn));
      measured.push(await timeOnce(measuredFn));
    } else {
      measured.push(await timeOnce(measuredFn));
      baseline.push(await timeOnce(baselineFn));
    }
  }
  return { baseline, measured };
}

export interface Figure {
  readonly bench: string;
  readonly median_ms?: number;
  readonly baseline?: string;
  readonly baseline_median_ms?: number;
  readonly target_ratio_max?: number;
  readonly target_median_ms_max?: number;
  readonly error?: string;
}

/** Prints one JSON line: the figure, its ratio to the baseline, and whether it meets its target. */
export function printFigure(figure: Figure): void {
  const line: Record<string, unknown> = { ...figure };
  if (figure.median_ms !== undefined) line.median_ms = round(figure.median_ms);
  if (figure.baseline_median_ms !== undefined) {
    line.baseline_median_ms = round(figure.baseline_median_ms);
  }
  if (figure.median_ms !== undefined && figure.baseline_median_ms !== undefined) {
    line.ratio = round(figure.median_ms / figure.baseline_median_ms);
  }
  if (figure.target_ratio_max !== undefined && typeof line.ratio === "number") {
    line.meets_target = line.ratio <= figure.target_ratio_max;
  }
  if (figure.target_median_ms_max !== undefined && figure.median_ms !== undefined) {
    line.meets_target = figure.median_ms <= figure.target_median_ms_max;
  }
  console.log(JSON.stringify(line));
}
