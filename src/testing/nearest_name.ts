/**
 * The "did you mean" of a misspelt name: the known name it most likely meant, matched without
 * case, else by edit distance within a budget that grows with the name's length.
 */

/** The candidate a typo most likely meant: same letters ignoring case, or a few edits away. */
export function nearestName(text: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.ceil(text.length / 3)));
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === text.toLowerCase()) return candidate;
    const distance = editDistance(text.toLowerCase(), candidate.toLowerCase());
    if (distance <= bestDistance) {
      best = candidate;
      bestDistance = distance - 1;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
