/**
 * Interleaved measurement of samples that time themselves. `measureInterleaved` (bench_stats.ts)
 * times whole calls; here each arm does its own setup and teardown (a new session, a wait for
 * background hooks) and returns only what it measured, so that work stays out of the figures.
 */

/**
 * Runs every arm once per round, after `warmUpRounds` unrecorded rounds, and returns each arm's
 * samples in arm order. The rounds go through every order of the arms in turn (with two arms:
 * A B, B A, A B, ...), so each arm follows each other arm about equally often: what one arm
 * leaves behind (a fork's write-protected pages, garbage) lands on the others evenly.
 */
export async function interleave<T>(
  rounds: number,
  warmUpRounds: number,
  arms: readonly (() => Promise<T>)[],
): Promise<T[][]> {
  const samples = arms.map((): T[] => []);
  const orders = permutations(arms.map((_, i) => i));
  for (let round = 0; round < warmUpRounds + rounds; round++) {
    for (const index of orders[round % orders.length]!) {
      const sample = await arms[index]!();
      if (round >= warmUpRounds) samples[index]!.push(sample);
    }
  }
  return samples;
}

/** Every order of `items`, in lexicographic order. */
function permutations(items: readonly number[]): number[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [first, ...rest])
  );
}
