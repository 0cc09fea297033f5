import os from 'node:os';
import { type Algorithm, gcra } from '@sluice/core';
import { type RedisProcess, startRedis } from '../../packages/redis/test/redis-server.js';

/** The script's own arguments: pnpm passes `--` through (`pnpm bench:core -- --rounds 3`). */
export const scriptArgs = (): string[] => process.argv.slice(2).filter((arg) => arg !== '--');

/** The machine, as each part's JSON reports it. */
export function machine(): { cores: number; cpu: string; node: string; platform: string } {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
  };
}

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

/**
 * Runs `fn` with a redis-server of its own (127.0.0.1, a free port, no persistence; never a
 * server already running), stopped afterwards: when `fn` settles, throws, or on SIGINT /
 * SIGTERM (exit 130).
 */
export async function withRedis<T>(fn: (server: RedisProcess) => Promise<T>): Promise<T> {
  const server = await startRedis();
  const stop = () => server.stop();
  const onSignal = () => {
    void stop().finally(() => process.exit(130));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onSignal);
  try {
    return await fn(server);
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, onSignal);
    await stop();
  }
}
