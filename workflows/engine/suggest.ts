/** "Did you mean …?": the candidate closest to a misspelled name, when one is close enough to be the likely intent. */

function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = previous[j];
      previous[j] = Math.min(previous[j] + 1, previous[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length];
}

/** The closest candidate: a case-insensitive match, one the name starts or ends (`status` → `statusCode`), or a few edits away. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const other = candidate.toLowerCase();
    let score = distance(lower, other);
    if (other === lower) score = 0;
    else if (lower.length >= 3 && (other.startsWith(lower) || lower.startsWith(other) || other.endsWith(lower))) score = Math.min(score, 1);
    const allowed = Math.max(1, Math.min(3, Math.floor(Math.max(name.length, candidate.length) / 3)));
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
