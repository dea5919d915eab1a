/**
 * The "did you mean" of a misspelt name: the known name it most likely meant, matched without
 * case, else by edit distance within a budget that grows with the name's length. Two swapped
 * letters count as one edit, the commonest typo ("lsit" is "list", not "init").
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
  // Optimal string alignment: insertions, deletions, substitutions and adjacent transpositions.
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const above = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
