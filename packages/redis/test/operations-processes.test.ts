import { join } from 'node:path';
// docs/guide/operating.md on Redis across processes: process A (this one) bans and unbans through
// LimitOperations; process B (operations-worker.ts, its own client) decides without pause
// and reports when its answer changes. Measured: from A's `ban()` / `unban()` resolving to B's
// first decision with the new answer, over 100 trials each, with pub/sub (target 50 ms p99)
// and with B's subscriber dropping every message (target syncMs + 50 ms). Then `INFO
// commandstats` over 10,000 decisions with operations in force and without: the same calls.
import { gcra, LimitOperations, RateLimiter } from '@sluice/core';
import {
  type OperationsWorker,
  type RedisProcess,
  startOperationsWorker,
  startRedis,
} from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { KEY } from './operations-worker.js';

/** Process B: operations-worker.ts. */
const WORKER = join(__dirname, 'operations-worker.ts');

// Real-time bounds for a loaded machine (load 10-30 on 2 cores): the target of
// docs/guide/operating.md is 50 ms p99 (with pub/sub) and syncMs + 50 ms (without); the test
// fails only well past them, and prints the figures measured.
const PUBSUB_P99_BOUND_MS = 250;
const SYNC_MS = 300;
const DEAF_BOUND_MS = SYNC_MS + 300;

function startWorker(port: number, deaf: boolean): Promise<OperationsWorker> {
  return startOperationsWorker(WORKER, { port, syncMs: SYNC_MS, deaf });
}

const now = () => performance.timeOrigin + performance.now();

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

let server: RedisProcess;
let client: Redis;
let store: RedisStore;
let ops: LimitOperations;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ host: '127.0.0.1', port: server.port });
  store = new RedisStore({ client });
  ops = new LimitOperations({ store });
}, 30_000);

afterAll(async () => {
  await store?.close();
  client?.disconnect();
  await server?.stop();
});

/**
 * `trials` bans then unbans of B's key: for each, ms from A's call resolving to B's first
 * decision with the new answer (0 when B had it before A's call resolved).
 */
async function measure(
  worker: OperationsWorker,
  trials: number,
): Promise<{ ban: number[]; unban: number[] }> {
  const ban: number[] = [];
  const unban: number[] = [];
  await worker.flip(false);
  for (let i = 0; i < trials; i++) {
    const denied = worker.flip(true);
    await ops.ban({ key: KEY }, { for: '1h', reason: `trial ${i}` });
    const banned = now();
    ban.push(Math.max(0, (await denied) - banned));
    const admitted = worker.flip(false);
    await ops.unban({ key: KEY });
    const unbanned = now();
    unban.push(Math.max(0, (await admitted) - unbanned));
  }
  return { ban, unban };
}

function summary(label: string, ms: number[]): string {
  const f = (v: number) => v.toFixed(1);
  return `${label}: p50 ${f(percentile(ms, 50))} ms, p99 ${f(percentile(ms, 99))} ms, max ${f(Math.max(...ms))} ms (n=${ms.length})`;
}

test("a ban made in A denies B's next decisions soon after ban() resolves (p99 printed; target 50 ms, failed past 250), an unban the same", async () => {
  const worker = await startWorker(server.port, false);
  try {
    const { ban, unban } = await measure(worker, 100);
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.info(`${summary('pub/sub, ban', ban)}; ${summary('unban', unban)}; load ${load}`);
    expect(percentile(ban, 99)).toBeLessThanOrEqual(PUBSUB_P99_BOUND_MS);
    expect(percentile(unban, 99)).toBeLessThanOrEqual(PUBSUB_P99_BOUND_MS);
  } finally {
    await worker.stop();
  }
}, 180_000);

test('with every pub/sub message lost, B catches up by its version check (target syncMs + 50 ms, failed past syncMs + 300)', async () => {
  const worker = await startWorker(server.port, true);
  try {
    const { ban, unban } = await measure(worker, 20);
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.info(
      `${summary(`no pub/sub (syncMs ${SYNC_MS}), ban`, ban)}; ${summary('unban', unban)}; load ${load}`,
    );
    // Not by a message: B would then see most changes within a few ms.
    expect(percentile(ban, 50)).toBeGreaterThan(10);
    expect(Math.max(...ban, ...unban)).toBeLessThanOrEqual(DEAF_BOUND_MS);
  } finally {
    await worker.stop();
  }
}, 180_000);

/** Calls per command since the last `CONFIG RESETSTAT` (`INFO commandstats`) of `on`. */
async function commandCalls(on: Redis): Promise<Record<string, number>> {
  const info = await on.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) calls[m[1]!] = Number(m[2]);
  return calls;
}

/**
 * Resets the stats once the server has been quiet (no command but our own `INFO` and
 * `CONFIG`) for 100 ms: what a store does once at start (its first load, its subscription's
 * version check) is not counted as the decisions'.
 */
async function resetWhenQuiet(on: Redis): Promise<void> {
  for (;;) {
    await on.config('RESETSTAT');
    await new Promise((r) => setTimeout(r, 100));
    const calls = await commandCalls(on);
    if (Object.keys(calls).every((c) => c === 'info' || c.startsWith('config'))) {
      await on.config('RESETSTAT');
      return;
    }
  }
}

test('10,000 decisions send the same commands with operations in force as without', async () => {
  // A server of its own: no other store's version check lands in the count.
  const quiet = await startRedis();
  const admin = new Redis({ host: '127.0.0.1', port: quiet.port });
  const own = new Redis({ host: '127.0.0.1', port: quiet.port });
  const measured = new RedisStore({ client: own });
  const prefix = 'stats';
  // syncMs of 10 minutes: no periodic version check inside the count either.
  const operations = new LimitOperations({ store: measured, prefix, syncMs: '10m' });
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 1_000_000, period: '1s' }),
    store: measured,
    prefix,
  });
  const run = async (tag: string) => {
    await limiter.consume(`${tag}:warm`);
    await resetWhenQuiet(admin);
    // One decision in flight at a time: each is one EVALSHA in both runs (no batching luck).
    for (let i = 0; i < 10_000; i++) {
      const d = await limiter.consume(`${tag}:${i % 100}`);
      if (!d.allowed) throw new Error('a decision of the measured traffic was denied');
    }
    return commandCalls(admin);
  };
  try {
    const off = await run('off');
    // Entries in force that the traffic's keys do not match: every decision consults them.
    for (let i = 0; i < 50; i++) await operations.ban({ key: `other:${i}` }, { for: '1h' });
    await operations.allow({ cidr: '10.0.0.0/8' });
    await operations.deny({ cidr: '2001:db8::/32' });
    await operations.override({ key: 'tenant' }, '100/1m', { for: '1h' });
    const on = await run('on');
    expect((await operations.list()).length).toBe(53);
    // The limiter did decide with them in force: a banned key is denied, the override applies.
    expect((await limiter.consume('other:7')).allowed).toBe(false);
    expect((await limiter.consume('tenant')).limit).toBe(100);
    expect(off.evalsha).toBe(10_000);
    expect(on).toEqual(off);
  } finally {
    await measured.close();
    own.disconnect();
    admin.disconnect();
    await quiet.stop();
  }
}, 180_000);
