// Queue instead of deny: N concurrent `acquire`s on one key of one Redis (a
// redis-server started on a free port), GCRA `--rate`/s burst 1, timeout `--timeout` ms, two
// ways: acquire as ONE reservation plus the wait (RedisStore.reserve), and the retry loop
// acquire ran before reservations (the same store handed over without `reserve`). Reports
// script calls (INFO commandstats), requests served, and the release gaps.
//
//   pnpm --filter @sluice/bench bench:queue [--n 100] [--rate 10] [--timeout 15000] [--limiters 4]
//
// `--limiters` RateLimiters on their own RedisStore and connection stand in for processes
// (the 4-process version is packages/redis/test/queue-processes.test.ts).
import { gcra, RateLimiter, type Store } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const N = arg('n', 100);
const RATE = arg('rate', 10);
const TIMEOUT = arg('timeout', 15_000);
const LIMITERS = arg('limiters', 4);

async function scriptCalls(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

async function run(port: number, booking: boolean) {
  const admin = new Redis({ port, host: '127.0.0.1' });
  const clients: Redis[] = [];
  const limiters = await Promise.all(
    Array.from({ length: LIMITERS }, async () => {
      const client = new Redis({ port, host: '127.0.0.1' });
      clients.push(client);
      const redis = new RedisStore({ client });
      await redis.ready();
      const store: Store = booking
        ? redis
        : { consume: (k, a, c, n) => redis.consume(k, a, c, n), reset: (k) => redis.reset(k) };
      return new RateLimiter({
        algorithm: gcra({ rate: RATE, period: '1s', burst: 1 }),
        store,
        onStoreError: 'deny',
        overLimitCache: false,
      });
    }),
  );
  // warm the scripts, then count from zero
  await limiters[0]!.peek('warm');
  if (booking)
    await (limiters[0]!.store as Store).reserve?.(
      'sl:warm',
      limiters[0]!.algorithm,
      0,
      Date.now(),
      0,
    );
  await admin.del('sl:queue');
  await admin.config('RESETSTAT');
  const start = performance.now();
  const released: number[] = [];
  const decisions = await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const d = await limiters[i % LIMITERS]!.acquire('queue', { timeoutMs: TIMEOUT });
      if (d.allowed) released.push(performance.now());
      return d;
    }),
  );
  const elapsed = performance.now() - start;
  const calls = await scriptCalls(admin);
  released.sort((a, b) => a - b);
  const gaps = released.slice(1).map((t, i) => t - released[i]!);
  const deviation = gaps.map((g) => Math.abs(g - 1000 / RATE));
  for (const c of clients) c.disconnect();
  admin.disconnect();
  return {
    way: booking ? 'reservation + wait' : 'retry loop (before)',
    served: decisions.filter((d) => d.allowed).length,
    scriptCalls: calls,
    seconds: Number((elapsed / 1000).toFixed(2)),
    gapP50DeviationMs: Number(quantile(deviation, 0.5).toFixed(2)),
    gapP99DeviationMs: Number(quantile(deviation, 0.99).toFixed(2)),
  };
}

const server = await startRedis();
try {
  console.log(
    `${N} concurrent acquires, GCRA ${RATE}/s burst 1, timeout ${TIMEOUT} ms, ${LIMITERS} limiters`,
  );
  console.table([await run(server.port, true), await run(server.port, false)]);
} finally {
  await server.stop();
}
