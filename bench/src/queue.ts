// `pnpm bench:queue`: `acquire` as one reservation (RedisStore.reserve) against the retry loop it
// replaced, on one key of a redis-server of its own; then `mode: 'queue'` past maxWait, and the
// event-loop lag with 10,000 requests parked. `--limiters` RateLimiters stand in for processes.
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gcra, Limit, MemoryStore, RateLimiter, type Store } from '@sluice/core';
import { HttpLimiter, type HttpVerdict } from '@sluice/core/http';
import { RedisStore } from '@sluice/redis';
import { quantile, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { parseCommand } from './cli/args.js';
import { scriptCalls } from './measure/common.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:queue -- [options]',
  summary:
    "Queue instead of deny: concurrent acquires on one Redis key as one reservation each against the retry loop; mode 'queue' past maxWait; event-loop lag with 10,000 parked.",
  options: {
    n: { type: 'number', default: 100, help: 'concurrent acquires' },
    rate: { type: 'number', default: 10, help: 'GCRA rate per second (burst 1)' },
    timeout: { type: 'number', default: 15_000, help: 'acquire timeout, ms' },
    limiters: { type: 'number', default: 4, help: 'RateLimiters, each on its own connection' },
  },
});
const { n: N, rate: RATE, timeout: TIMEOUT, limiters: LIMITERS } = args;

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
  const first = limiters[0]!;
  await first.peek('warm');
  if (booking) await (first.store as Store).reserve?.('sl:warm', first.algorithm, 0, Date.now(), 0);
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

const view = () => ({ method: 'GET', route: 'GET /q', ip: '10.0.0.1', headers: {}, raw: {} });
/** A queued HttpLimiter: `rate`/s, burst 1, maxWait 2 s, room for 20,000. */
const queued = (store: Store, rate: number) =>
  new HttpLimiter({
    limit: Limit.per(rate, '1s'),
    algorithm: ({ limit, periodMs }) => gcra({ rate: limit, period: periodMs, burst: 1 }),
    store,
    mode: 'queue',
    maxWait: '2s',
    maxQueued: 20_000,
  });

/** Past maxWait: ms from the call to the 429 verdict (p50, p99 of 1000), Retry-After vs the wait. */
async function pastMaxWait(store: Store, name: string) {
  const limiter = queued(store, 1);
  // slots at 0, 1 s and 2 s booked: for the next second every wait passes maxWait (2 s)
  const parked = Array.from({ length: 3 }, () => limiter.check(view()));
  const times: number[] = [];
  let headerRight = 0;
  for (let i = 0; i < 1000; i++) {
    const t = performance.now();
    const v = (await limiter.check(view())) as HttpVerdict;
    times.push(performance.now() - t);
    if (!v.allowed && v.retryAfterSeconds === Math.ceil(v.decision.retryAfterMs / 1000)) {
      headerRight++;
    }
  }
  await Promise.all(parked);
  return {
    store: name,
    'to 429 p50 ms': Number(quantile(times, 0.5).toFixed(3)),
    'to 429 p99 ms': Number(quantile(times, 0.99).toFixed(3)),
    'Retry-After = wait rounded up': `${headerRight}/1000`,
  };
}

/** Event-loop lag p99 over `ms` (1 ms resolution), with `parked` requests parked first. */
async function lagWith(parked: number, ms = 3000) {
  const limiter = queued(new MemoryStore(), 1000);
  const cpu = process.cpuUsage();
  // perf: one setTimeout per parked request; timing the parking shows what 10,000 cost
  const waiting = Array.from({ length: parked }, () => limiter.check(view()));
  const { user, system } = process.cpuUsage(cpu);
  const parkCpuMs = (user + system) / 1000;
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  h.disable();
  void Promise.all(waiting);
  return { parked, lagP99Ms: h.percentile(99) / 1e6, parkCpuMs: Number(parkCpuMs.toFixed(1)) };
}

const server = await startRedis();
try {
  console.log(
    `${N} concurrent acquires, GCRA ${RATE}/s burst 1, timeout ${TIMEOUT} ms, ${LIMITERS} limiters`,
  );
  console.table([await run(server.port, true), await run(server.port, false)]);
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  console.log("mode 'queue', past maxWait (2 s): the 429 at once (1000 in a row, 1/s burst 1)");
  console.table([
    await pastMaxWait(new MemoryStore(), 'memory'),
    await pastMaxWait(new RedisStore({ client }), 'redis'),
  ]);
  client.disconnect();
  const [none, many] = [await lagWith(0), await lagWith(10_000)];
  console.log('event-loop lag p99 (1 ms resolution, 3 s; 10,000 release at 1000/s meanwhile)');
  console.table([none, many]);
  const ratio = many.lagP99Ms / none.lagP99Ms;
  console.log(
    `10,000 parked: lag p99 ${((ratio - 1) * 100).toFixed(1)}% vs none (target <= 5%), load ${loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  await server.stop();
}
