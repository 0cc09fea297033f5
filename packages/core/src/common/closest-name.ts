// The "did you mean" of every unknown-option message (the core's and @sluice/client's): no imports,
// so the client's browser bundle takes it from `@sluice/core/shared` for a few hundred bytes.

/**
 * Edit distance of `a` and `b` (insertions, deletions, substitutions and transpositions of
 * neighbours, so `limti` is one edit from `limit`), compared case-insensitively.
 */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = [];
  for (let i = 0; i <= s.length; i++) d.push([i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 0; j <= t.length; j++) d[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const row = d[i]!;
      const above = d[i - 1]!;
      row[j] = Math.min(
        above[j]! + 1,
        row[j - 1]! + 1,
        above[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The known name `name` is most likely a typo of: within 2 edits (1 for names of up to 4
 * characters), or the same but for case; undefined when none is that close.
 *
 * @example
 * ```ts
 * closestName('maxWiat', ['maxWait', 'retries']); // 'maxWait'
 * ```
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const cap = Math.min(name.length, candidate.length) <= 4 ? 1 : 2;
    if (Math.abs(name.length - candidate.length) > cap) continue;
    const d = distance(name, candidate);
    if (d <= cap && d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
