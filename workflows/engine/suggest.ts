/** "Did you mean …?": the candidate closest to a misspelled name, when one is close enough to be the likely intent. */

/** Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (`levle` → `level` is one). */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

const MAX_COMPARED = 64;

/**
 * The closest candidate: a case-insensitive match, one the name starts or ends (`status` → `statusCode`), or a few
 * edits away. Only names of a plausible length are compared, so hostile input (long names, many steps) costs little.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length > MAX_COMPARED) return undefined;
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === name || candidate.length > MAX_COMPARED) continue;
    const other = candidate.toLowerCase();
    const allowed = Math.max(1, Math.min(3, Math.floor(Math.max(name.length, candidate.length) / 3)));
    let score: number;
    if (other === lower) score = 0;
    else if (lower.length >= 3 && (other.startsWith(lower) || lower.startsWith(other) || other.endsWith(lower))) score = 1;
    else if (Math.abs(other.length - lower.length) > allowed) continue;
    else score = distance(lower, other);
    if (score <= allowed && score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** ` (did you mean `x`?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>, render: (candidate: string) => string = (c) => c): string {
  const best = closestName(name, candidates);
  return best === undefined ? '' : `; did you mean \`${render(best)}\`?`;
}
