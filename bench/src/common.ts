import { type Algorithm, gcra } from '@sluice/core';

/** The script's own arguments: pnpm passes `--` through (`pnpm bench:core -- --rounds 3`). */
export const scriptArgs = (): string[] => process.argv.slice(2).filter((arg) => arg !== '--');

/** The median of `xs` (mean of the two middle values for an even count). */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * 1M per second (an exact 1/1000 ms emission interval) with a burst of 1e9: never denies
 * at any rate we reach, and every decision advances the TAT.
 */
export const gcraAlgo = (): Algorithm => gcra({ rate: 1e6, period: '1s', burst: 1e9 });

/** Scale runs: every key stays stored (TAT an hour ahead) and is never denied. */
export const residentAlgo = (): Algorithm => gcra({ rate: 1, period: '1h', burst: 1e7 });
/** {@link residentAlgo} as the reports print it. */
export const RESIDENT_CONFIG = 'gcra({ rate: 1, period: "1h", burst: 1e7 })';
