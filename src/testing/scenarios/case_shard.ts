/**
 * `--shard I/N`: the slice of a run's cases one CI job runs, as the test runners people know
 * split a suite across a matrix. Cases are dealt round-robin in file-then-case order, so every
 * case is in exactly one shard, shards differ by at most one case, and the same files and filter
 * give the same slices on every machine.
 */

export interface Shard {
  /** 1-based: shard 1 of 4 is the first. */
  readonly index: number;
  readonly count: number;
}

export function parseShard(
  text: string,
): { readonly ok: true; readonly shard: Shard } | { readonly ok: false; readonly message: string } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    return {
      ok: false,
      message: `--shard takes I/N, the I-th of N slices with 1 <= I <= N (e.g. 2/4), not "${text}"`,
    };
  }
  return { ok: true, shard: { index, count } };
}

/** The cases of `shard`, in their order; all of them without one. */
export function casesOfShard<T>(cases: readonly T[], shard: Shard | undefined): T[] {
  if (shard === undefined) return [...cases];
  return cases.filter((_, position) => position % shard.count === shard.index - 1);
}

/**
 * Whether this shard reports the run's invalid scenario files: the first only, so a matrix fails
 * once for each and merged reports name each once.
 */
export function reportsProblems(shard: Shard | undefined): boolean {
  return shard === undefined || shard.index === 1;
}
