// Faults (the `onStoreError` policy, reliability under load): with our own Redis killed, stalled
// (SIGSTOP) or losing its scripts, `consume` never waits past `timeoutMs`, decides by the
// documented policy, never rejects, never leaves an unhandled rejection, logs once per
// outage and once on recovery, and the same limiter uses Redis again when it is back.

import { once } from 'node:events';
import { runInThisContext } from 'node:vm';
import { type Decision, fixedWindow, gcra, RateLimiter, type Store } from '@sluice/core';
import {
  type Algorithm,
  DENY_RETRY_MS,
  FailSafeStore,
  type StoreErrorPolicy,
} from '@sluice/core/store';
import { EPOCH, type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis, type RedisOptions } from 'ioredis';
import { RedisStore, StoreTimeoutError } from '../src/index.js';
import { buildAlgorithm, HUNDRED_PER_HOUR, specLabel } from './algorithm-specs.js';

/** Timer and scheduling slack on a busy 2-core machine. */
const SLACK_MS = 50;

/**
 * The real `process`: jest gives each test file a copy whose listeners Node never calls, so
 * the 'unhandledRejection' listener goes on the process of the outer context.
 */
const realProcess = runInThisContext('process') as NodeJS.Process;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

let server: RedisProcess;
const clients: Redis[] = [];

beforeAll(async () => {
  realProcess.on('unhandledRejection', onUnhandled);
  server = await startRedis();
}, 30_000);

afterAll(async () => {
  realProcess.off('unhandledRejection', onUnhandled);
  for (const c of clients) c.disconnect();
  server?.resume();
  await server?.stop();
});

afterEach(async () => {
  // Let late answers, late rejections and reconnects run before looking.
  await sleep(50);
  expect(unhandled).toEqual([]);
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * How late this process's timers ran while a test watched (ms: the largest lateness of a 5 ms
 * timer chained from start to `stop()`). The store's deadline is a timer of this process: on
 * a loaded machine it fires that much late (CI once saw 169 ms for a 100 ms deadline on Node
 * 26, with every other bound held), so the bounds add it to SLACK_MS rather than assert the
 * machine's speed.
 */
function timerLag(): { stop(): number } {
  let max = 0;
  let expected = performance.now() + 5;
  const tick = () => {
    const now = performance.now();
    max = Math.max(max, now - expected);
    expected = now + 5;
    timer = setTimeout(tick, 5).unref();
  };
  let timer = setTimeout(tick, 5).unref();
  return {
    stop() {
      clearTimeout(timer);
      return max;
    },
  };
}

/** A connected ioredis client on our server; its errors are expected here and ignored. */
async function connect(options: RedisOptions = {}): Promise<Redis> {
  const client = new Redis({
    host: '127.0.0.1',
    port: server.port,
    retryStrategy: () => 50,
    ...options,
  });
  client.on('error', () => {});
  clients.push(client);
  if (client.status !== 'ready') await once(client, 'ready');
  return client;
}

/** Fails fast while Redis is down: no offline queue, one retry per request. */
const fastFail = () => connect({ enableOfflineQueue: false, maxRetriesPerRequest: 1 });

interface Timed {
  decision: Decision;
  ms: number;
}

async function timed(call: Promise<Decision>): Promise<Timed> {
  const start = performance.now();
  const decision = await call;
  return { decision, ms: performance.now() - start };
}

function spyLogger() {
  const messages: string[] = [];
  return { messages, logger: { warn: (message: string) => void messages.push(message) } };
}

/** Consumes on `key` until the limiter logs that the store answers again (≤ 10 s). */
async function untilRecovered(
  limiter: RateLimiter,
  messages: string[],
  key: string,
): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!messages.some((m) => m.includes('answering again'))) {
    if (performance.now() > deadline) throw new Error(`no recovery: ${JSON.stringify(messages)}`);
    await limiter.consume(key);
    await sleep(20);
  }
}

it('the unhandled-rejection listener is on the process Node reports to', () => {
  // (A deliberate unhandled rejection cannot be used to show it: jest fails that test too.)
  expect(realProcess).not.toBe(process);
  expect(realProcess.pid).toBe(process.pid);
  expect(realProcess.listeners('unhandledRejection')).toContain(onUnhandled);
});

describe.each([
  ['fails fast (no offline queue)', true],
  ['queues offline (ioredis defaults)', false],
] as const)('Redis killed, client that %s', (_label, failFast) => {
  const TIMEOUT_MS = 150;
  const LIMIT = 3;

  const expected: Record<StoreErrorPolicy, (i: number) => Partial<Decision>> = {
    // A fresh in-process MemoryStore decides: LIMIT admitted, the next one denied.
    insurance: (i) =>
      i < LIMIT ? { allowed: true, remaining: LIMIT - 1 - i } : { allowed: false, remaining: 0 },
    allow: () => ({ allowed: true, limit: LIMIT, remaining: LIMIT, retryAfterMs: 0 }),
    deny: () => ({ allowed: false, limit: LIMIT, remaining: 0, retryAfterMs: DENY_RETRY_MS }),
  };

  it.each(['insurance', 'allow', 'deny'] as const)(
    "onStoreError '%s': every call settles within timeoutMs with the policy's decision; the same limiter uses Redis again when it is back",
    async (policy) => {
      // ioredis defaults, but for the reconnect delay: its offline queue is dropped only after
      // 20 failed reconnects, so at 200 ms it still holds the outage's commands at recovery.
      const client = failFast ? await fastFail() : await connect({ retryStrategy: () => 200 });
      const store = new RedisStore({ client, timeoutMs: TIMEOUT_MS, clock: 'client' });
      const { messages, logger } = spyLogger();
      const now = EPOCH;
      const limiter = new RateLimiter({
        algorithm: gcra({ rate: LIMIT, period: '1h' }),
        store,
        prefix: `killed-${policy}-${failFast}`,
        clock: () => now,
        onStoreError: policy,
        logger,
      });
      // Healthy: decided by Redis.
      expect(await limiter.consume('warm')).toMatchObject({ allowed: true, remaining: 2 });
      expect(messages).toEqual([]);

      await server.kill();
      // (Wait for the client to see the socket close: a command written in the moment between
      // is resent by ioredis after the reconnect, like any command lost in flight.)
      while (client.status === 'ready') await sleep(1);
      const lag = timerLag();
      try {
        const results: Timed[] = [];
        for (let i = 0; i < LIMIT + 2; i++) results.push(await timed(limiter.consume('k')));
        // Also concurrently: no call waits longer, none rejects.
        const burst = await Promise.all(
          Array.from({ length: 20 }, () => timed(limiter.consume('other'))),
        );
        const resetStart = performance.now();
        await limiter.reset('k2');
        const resetMs = performance.now() - resetStart;
        const late = lag.stop();

        for (const { ms } of [...results, ...burst]) {
          expect(ms).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS + late);
        }
        expect(resetMs).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS + late);
        results.forEach(({ decision }, i) => {
          expect({ i, ...decision }).toMatchObject({
            i,
            limit: LIMIT,
            cost: 1,
            ...expected[policy](i),
          });
        });
        // One notice for the whole outage, not one per request.
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatch(new RegExp(`store failing .*onStoreError '${policy}'`));
      } finally {
        await server.start();
      }

      // Back: the same limiter (not rebuilt) decides on Redis again, and logs that once.
      await untilRecovered(limiter, messages, 'probe');
      expect(messages).toHaveLength(2);
      expect(messages[1]).toMatch(/answering again/);
      // Nothing decided during the outage ran on Redis late (no replay from the offline
      // queue: a denied request must consume nothing), and Redis restarted empty: 'k' has its
      // full quota there (the insurance store had none left).
      await sleep(100);
      expect(await server.cli('KEYS', '*')).toBe(
        `${store.keyFor(`killed-${policy}-${failFast}:probe`)}\n`,
      );
      expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: LIMIT - 1 });
      const fresh = await limiter.consume('written-after-recovery', { cost: 2 });
      expect(fresh).toMatchObject({ allowed: true, remaining: LIMIT - 2 });
      // The state is in Redis: seen by redis-cli (its TAT: now + 2 emission intervals).
      const redisKey = store.keyFor(`killed-${policy}-${failFast}:written-after-recovery`);
      expect(Number(await server.cli('GET', redisKey))).toBe(now + 2 * (3_600_000 / LIMIT));
      // And by another client.
      const second = await connect();
      expect(Number(await second.pttl(redisKey))).toBeGreaterThan(0);
      expect(messages).toHaveLength(2);
    },
    30_000,
  );
});

describe('Redis stalled (SIGSTOP)', () => {
  it('no call waits longer than timeoutMs + 50 ms; insurance decides meanwhile; recovery after SIGCONT', async () => {
    const TIMEOUT_MS = 100;
    const client = await connect();
    const store = new RedisStore({ client, timeoutMs: TIMEOUT_MS });
    const { messages, logger } = spyLogger();
    let now = EPOCH;
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 5, window: '1h' }),
      store,
      prefix: 'stalled',
      clock: () => now,
      logger,
    });
    expect(await limiter.consume('warm')).toMatchObject({ allowed: true });

    server.pause();
    const lag = timerLag();
    let results: Timed[];
    try {
      // Waves of concurrent calls, started at different moments during the stall.
      const waves: Promise<Timed[]>[] = [];
      for (let wave = 0; wave < 6; wave++) {
        waves.push(
          Promise.all(Array.from({ length: 30 }, (_, i) => timed(limiter.consume(`w${i % 3}`)))),
        );
        await sleep(35);
        now += 1;
      }
      results = (await Promise.all(waves)).flat();
      // A call made alone, well into the stall.
      results.push(await timed(limiter.consume('alone')));
    } finally {
      server.resume();
    }
    const slowest = Math.max(...results.map((r) => r.ms));
    expect(slowest).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS + lag.stop());
    // They did wait for Redis first (the stall was real), then insurance decided: 5 per key.
    expect(slowest).toBeGreaterThanOrEqual(TIMEOUT_MS - 1);
    const admitted = results.slice(0, -1).filter((r) => r.decision.allowed).length;
    expect(admitted).toBe(3 * 5);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/did not answer within 100 ms/);

    await untilRecovered(limiter, messages, 'probe');
    expect(messages).toHaveLength(2);
    const after = await limiter.consume('after-stall');
    expect(after).toMatchObject({ allowed: true, remaining: 4 });
    expect(
      Number(
        await server.cli(
          'EXISTS',
          store.keyFor('stalled@fw:after-stall') /* a fixed window: the prefix marked @fw */,
        ),
      ),
    ).toBe(1);
  }, 30_000);
});

describe('Redis stalled 3 s (SIGSTOP): the circuit breaker, and no late charge', () => {
  const TIMEOUT_MS = 100;
  const STALL_MS = 3000;

  it("requests answered by onStoreError during the stall charge nothing on Redis when it wakes: 'deny' leaves 10 of 10, 'insurance' and 'allow' are not charged twice", async () => {
    const policies = ['deny', 'insurance', 'allow'] as const;
    const setups = await Promise.all(
      policies.map(async (policy) => {
        const client = await connect();
        const store = new RedisStore({ client, timeoutMs: TIMEOUT_MS });
        const { messages, logger } = spyLogger();
        const limiter = new RateLimiter({
          algorithm: gcra({ rate: 10, period: '1h' }),
          store,
          prefix: `late-${policy}`,
          onStoreError: policy,
          logger,
        });
        // A first reply: the store learns how Redis's clock stands to ours.
        expect(await limiter.consume('warm')).toMatchObject({ allowed: true });
        return { policy, store, limiter, messages, decisions: [] as Decision[] };
      }),
    );
    const stallStart = performance.now();
    server.pause();
    try {
      // 3 concurrent requests (sent to Redis: they time out and open the breaker), then one
      // at 1.2 s and one at 2.4 s (the breaker's probes, sent to Redis: they time out too),
      // and one at 2.9 s (decided at once). All six reach Redis on main.
      await Promise.all(
        setups.map(async (s) => {
          s.decisions.push(...(await Promise.all([1, 2, 3].map(() => s.limiter.consume('k')))));
        }),
      );
      for (const at of [1200, 2400, 2900]) {
        await sleep(stallStart + at - performance.now());
        for (const s of setups) s.decisions.push(await s.limiter.consume('k'));
      }
      await sleep(stallStart + STALL_MS - performance.now());
    } finally {
      server.resume();
    }
    for (const s of setups) {
      expect(s.decisions.map((d) => d.allowed)).toEqual(Array(6).fill(s.policy !== 'deny'));
      await untilRecovered(s.limiter, s.messages, 'probe');
      await sleep(50); // every late reply is in
      // Nothing of the stall ran on Redis: 'k' was never written, its quota is whole.
      expect(Number(await server.cli('EXISTS', s.store.keyFor(`late-${s.policy}:k`)))).toBe(0);
      expect(await s.limiter.peek('k')).toMatchObject({ remaining: 10 });
      expect(await s.limiter.consume('k')).toMatchObject({ allowed: true, remaining: 9 });
      expect(s.messages).toHaveLength(2);
    }
  }, 15_000);

  it('at least 90% of the requests made during the stall are answered within 20 ms, none later than timeoutMs', async () => {
    const client = await connect();
    const { messages, logger } = spyLogger();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 1000, period: '1s' }),
      store: new RedisStore({ client, timeoutMs: TIMEOUT_MS }),
      prefix: 'breaker-latency',
      logger,
    });
    await limiter.consume('warm');
    const pending: Promise<Timed>[] = [];
    const stallStart = performance.now();
    server.pause();
    const lag = timerLag();
    try {
      // About 100 requests a second, on 50 keys, without waiting for the answers.
      for (let i = 0; performance.now() - stallStart < STALL_MS; i++) {
        pending.push(timed(limiter.consume(`user-${i % 50}`)));
        await sleep(10);
      }
    } finally {
      server.resume();
    }
    const results = await Promise.all(pending);
    const fast = results.filter((r) => r.ms <= 20).length;
    expect(results.length).toBeGreaterThan(100);
    expect(fast / results.length).toBeGreaterThanOrEqual(0.9);
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThanOrEqual(
      TIMEOUT_MS + SLACK_MS + lag.stop(),
    );
    expect(messages).toHaveLength(1);
    await untilRecovered(limiter, messages, 'probe');
    expect(messages).toHaveLength(2);
  }, 15_000);
});

describe('SCRIPT FLUSH between calls', () => {
  it.each(HUNDRED_PER_HOUR.map((spec) => ({ spec, label: specLabel(spec) })))(
    'is invisible to callers: $label keeps counting exactly',
    async ({ spec }) => {
      const client = await connect();
      const admin = await connect();
      const { messages, logger } = spyLogger();
      const limiter = new RateLimiter({
        algorithm: buildAlgorithm(spec),
        store: new RedisStore({ client }),
        prefix: `flush-${spec.factory}`,
        onStoreError: 'deny',
        logger,
      });
      const decisions: Decision[] = [];
      await limiter.consume('k', { cost: 97 });
      for (let i = 0; i < 5; i++) {
        expect(await admin.script('FLUSH')).toBe('OK');
        decisions.push(await limiter.consume('k'));
      }
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      expect(messages).toEqual([]);
    },
  );
});

describe('the failure logger (FailSafeStore, unit)', () => {
  /** A store that fails (rejects, throws or times out) while `mode` says so. */
  class FlakyStore implements Store {
    mode: 'ok' | 'reject' | 'throw' | 'timeout' = 'ok';
    consume(_key: string, algorithm: Algorithm, cost: number): Promise<Decision> {
      if (this.mode === 'throw') throw new Error('sync failure');
      if (this.mode === 'reject') return Promise.reject(new Error('ECONNREFUSED'));
      if (this.mode === 'timeout') return Promise.reject(new StoreTimeoutError(100));
      return Promise.resolve({
        allowed: true,
        limit: algorithm.limit,
        remaining: algorithm.limit - cost,
        retryAfterMs: 0,
        resetAfterMs: 0,
        cost,
      });
    }
    reset(): Promise<void> {
      return this.mode === 'ok' ? Promise.resolve() : Promise.reject(new Error('down'));
    }
  }

  it('logs once per outage (not per request, not per concurrent request) and once on recovery', async () => {
    const flaky = new FlakyStore();
    const { messages, logger } = spyLogger();
    // The breaker's clock: moved past the cooldown by hand, so recovery needs no sleep.
    const time = { ms: 0 };
    const cooldown = () => {
      time.ms += 1000;
    };
    const store = new FailSafeStore({
      store: flaky,
      onStoreError: 'insurance',
      logger: logger,
      breaker: {
        cooldownMs: 1000,
        clock: () => time.ms,
      },
    });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store, logger });
    await limiter.consume('a');
    expect(messages).toEqual([]);

    flaky.mode = 'reject';
    await Promise.all(Array.from({ length: 25 }, () => limiter.consume('a')));
    cooldown();
    flaky.mode = 'throw';
    for (let i = 0; i < 5; i++) await limiter.consume('a'); // the first is a probe: fails
    cooldown();
    flaky.mode = 'timeout';
    await limiter.consume('a'); // a probe: times out
    await limiter.reset('a');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/store failing \(ECONNREFUSED\)/);

    flaky.mode = 'ok';
    cooldown();
    for (let i = 0; i < 5; i++) await limiter.consume('a');
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatch(/answering again/);

    // A second outage is a second notice, and a second recovery another.
    flaky.mode = 'timeout';
    for (let i = 0; i < 5; i++) await limiter.consume('a');
    flaky.mode = 'ok';
    cooldown();
    await limiter.consume('a');
    expect(messages).toHaveLength(4);
    expect(messages[2]).toMatch(/store failing \(sluice: the store did not answer within 100 ms\)/);
    expect(messages[3]).toMatch(/answering again/);
  });

  it.each(['insurance', 'allow', 'deny'] as const)(
    "RateLimiter wraps a failing store by onStoreError '%s' and never rejects",
    async (policy) => {
      const flaky = new FlakyStore();
      flaky.mode = 'reject';
      const { messages, logger } = spyLogger();
      const limiter = new RateLimiter({
        algorithm: fixedWindow({ limit: 2, window: '1m' }),
        store: flaky,
        clock: () => EPOCH,
        onStoreError: policy,
        logger,
      });
      const allowed = [];
      for (let i = 0; i < 3; i++) allowed.push((await limiter.consume('a')).allowed);
      expect(allowed).toEqual(
        { insurance: [true, true, false], allow: [true, true, true], deny: [false, false, false] }[
          policy
        ],
      );
      expect(messages).toHaveLength(1);
    },
  );
});

it('no unhandled rejection anywhere in this file', async () => {
  await sleep(200);
  expect(unhandled).toEqual([]);
});
