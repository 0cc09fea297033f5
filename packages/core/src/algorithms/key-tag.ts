import type { Algorithm, AlgorithmFamily } from './algorithm.js';

/**
 * The mark each algorithm family puts on its keys' prefix (`<prefix>@<tag>:`), so that a limit
 * moved to another algorithm starts on fresh keys instead of reading the old algorithm's
 * state as its own (a fixed window's counter read as a GCRA TAT denies a user for nothing).
 * GCRA, the default (and the leaky and token buckets, which are GCRA), has none: its keys are
 * the ones sluice has always written. Concurrency limits keep theirs too (a lease count is
 * their own kind of limit: `Limit.concurrent`).
 */
const KEY_TAGS: Record<AlgorithmFamily, string> = {
  gcra: '',
  'fixed-window': '@fw',
  'sliding-window': '@sw',
  'sliding-log': '@log',
  'calendar-window': '@cal',
  // Decided in process, never in a store: its keys live only in its own gate.
  adaptive: '@ad',
};

/**
 * The key-prefix mark of `algorithm` (see above): `''` for GCRA and concurrency limits,
 * `'@fw'`, `'@sw'`, `'@log'` or `'@cal'` otherwise, `'@<kind>'` for a family sluice does not
 * know. A penalty (`Limit.blockFor`) takes its inner algorithm's.
 *
 * @example
 * algorithmKeyTag(fixedWindow({ limit: 10, window: '1m' })); // '@fw'
 * algorithmKeyTag(gcra({ rate: 10, period: '1m' }));          // ''
 */
export function algorithmKeyTag(algorithm: Algorithm): string {
  if (algorithm.concurrent === true) return '';
  return KEY_TAGS[algorithm.kind] ?? `@${String(algorithm.kind)}`;
}
