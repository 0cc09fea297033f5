// Faults that must not spread (one standalone Redis of our own): a key whose stored state
// its algorithm cannot read fails that key's decision only; this process's event loop
// blocked during a burst is not a Redis failure; a stall answers the calls already waiting
// as soon as the breaker opens; the over-limit cache keeps a penalty's block through an
// outage; a failure's log line is one line with no key, user id or script source.
import { once } from 'node:events';
import { type Decision, fixedWindow, gcra, penalty, RateLimiter, type Store } from '@sluice/core';
import { type Algorithm, FailSafeStore, parsePenalty } from '@sluice/core/store';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const c of clients) c.disconnect();
  server?.resume();
  await server?.stop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function connect(): Promise<Redis> {
  const client = new Redis({ host: '127.0.0.1', port: server.port, retryStrategy: () => 50 });
  client.on('error', () => {});
  clients.push(client);
  if (client.status !== 'ready') await once(client, 'ready');
  return client;
}

function spyLogger() {
  const messages: string[] = [];
  const calls: unknown[][] = [];
  return {
    messages,
    calls,
    logger: {
      warn: (...args: unknown[]) => {
        calls.push(args);
        messages.push(String(args[0]));
      },
    },
  };
}

/** A store that marks the decisions Redis made (the others were made by the policy). */
function tapped(redis: RedisStore, fromRedis: WeakSet<Decision>): Store {
  return {
    consume: (key: string, algorithm: Algorithm, cost: number, nowMs: number) =>
      Promise.resolve(redis.consume(key, algorithm, cost, nowMs)).then((d) => {
        fromRedis.add(d);
        return d;
      }),
    reset: (key: string) => redis.reset(key),
    failPending: (domain?: string) => redis.failPending(domain),
  };
}

/** Keeps this process's event loop busy for `ms` (no I/O, no timer runs meanwhile). */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

describe('a key whose state its algorithm cannot read (the limit switched from GCRA to a fixed window)', () => {
  it("fails that key's decision only: every other user is decided by Redis, no breaker opens, one log line names the algorithm and no key", async () => {
    const client = await connect();
    const redis = new RedisStore({ client, timeoutMs: 2000 });
    const fromRedis = new WeakSet<Decision>();
    const { messages, calls, logger } = spyLogger();
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 1000, window: '1h' }),
      store: tapped(redis, fromRedis),
      prefix: 'switched',
      logger,
    });
    // carol's key holds a GCRA TAT (a number, not "<windowEnd>,<count>"), dave's a hash. A
    // fixed window's keys are marked `@fw` (so a switch from GCRA starts fresh by itself):
    // planted under that mark here, as a key written by something else would be.
    await client.set(
      redis.keyFor('switched@fw:user:carol@example.com'),
      String(Date.now() + 60_000),
    );
    await client.hset(redis.keyFor('switched@fw:user:dave@example.com'), 'x', '1');

    // Alone (the single-key script), then in waves with 99 other users (batched scripts).
    const alone = await limiter.consume('user:carol@example.com');
    expect(fromRedis.has(alone)).toBe(false);
    const others: Decision[] = [];
    const broken: Decision[] = [];
    for (let wave = 0; wave < 10; wave++) {
      const calls: Promise<void>[] = [];
      for (let i = 0; i < 99; i++) {
        calls.push(limiter.consume(`user:${i}@example.com`).then((d) => void others.push(d)));
        if (i === 30)
          calls.push(limiter.consume('user:carol@example.com').then((d) => void broken.push(d)));
        if (i === 60)
          calls.push(limiter.consume('user:dave@example.com').then((d) => void broken.push(d)));
      }
      await Promise.all(calls);
    }
    expect(others).toHaveLength(990);
    const byRedis = others.filter((d) => fromRedis.has(d)).length;
    console.log(`wrong-type key: other users' requests decided by Redis: ${byRedis} of 990`);
    expect(byRedis).toBe(990);
    expect(others.every((d) => d.allowed)).toBe(true);
    // The broken keys went to the policy ('insurance': an in-process bucket), not to Redis.
    expect(broken).toHaveLength(20);
    expect(broken.some((d) => fromRedis.has(d))).toBe(false);
    // One line, naming the limit's algorithm; no key, no user id; the store never "failed".
    expect(messages).toHaveLength(1);
    expect(calls[0]).toHaveLength(1);
    expect(messages[0]).toMatch(/fixedWindow\(1000 per 3600000 ms\).*fixed-window/);
    expect(messages[0]).not.toMatch(/carol|dave|example\.com|switched|\n/);
    expect(messages.some((m) => m.includes('store failing'))).toBe(false);
  });
});

describe("this process's event loop blocked 900 ms during a burst (Redis healthy)", () => {
  it('uses the replies that arrived meanwhile: exactly the limit admitted, all by Redis, the store never failing', async () => {
    const client = await connect();
    const redis = new RedisStore({ client, timeoutMs: 500 });
    const fromRedis = new WeakSet<Decision>();
    const { messages, logger } = spyLogger();
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 10, window: '1h' }),
      store: tapped(redis, fromRedis),
      prefix: 'blocked-loop',
      logger,
    });
    await limiter.consume('warm'); // the server's clock is known
    const burst: Promise<Decision>[] = [];
    for (let i = 0; i < 6; i++) burst.push(limiter.consume('u'));
    await new Promise((r) => setImmediate(r)); // these 6 are sent
    // 5 more asked for (not yet sent), then the loop blocks past every deadline.
    for (let i = 0; i < 5; i++) burst.push(limiter.consume('u'));
    block(900);
    const decisions = await Promise.all(burst);
    const admitted = decisions.filter((d) => d.allowed).length;
    console.log(
      `event loop blocked 900 ms: ${admitted} admitted of a limit of 10 (${decisions.filter((d) => fromRedis.has(d)).length} of 11 decided by Redis)`,
    );
    expect(admitted).toBe(10);
    expect(decisions.every((d) => fromRedis.has(d))).toBe(true);
    expect(messages).toEqual([]);
  });
});

describe('Redis stalled 3 s (SIGSTOP) at about 300 requests a second, timeoutMs 500', () => {
  it('the calls already waiting when the breaker opens are answered then: only the first batch and the probes wait the full timeout', async () => {
    const TIMEOUT_MS = 500;
    const STALL_MS = 3000;
    const client = await connect();
    const { messages, logger } = spyLogger();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100_000, period: '1s' }),
      store: new RedisStore({ client, timeoutMs: TIMEOUT_MS }),
      prefix: 'stall-300',
      logger,
    });
    await limiter.consume('warm');
    const pending: Promise<{ at: number; ms: number }>[] = [];
    const stallStart = performance.now();
    server.pause();
    try {
      for (let i = 0; performance.now() - stallStart < STALL_MS; i++) {
        const at = performance.now();
        pending.push(
          limiter.consume(`user-${i % 50}`).then(() => ({
            at: at - stallStart,
            ms: performance.now() - at,
          })),
        );
        await sleep(3);
      }
    } finally {
      server.resume();
    }
    const results = await Promise.all(pending);
    const fast = results.filter((r) => r.ms <= 20).length;
    const full = results.filter((r) => r.ms >= TIMEOUT_MS - 10).length;
    console.log(
      `stall 3 s, timeoutMs 500: ${results.length} requests, ${((100 * fast) / results.length).toFixed(1)}% answered within 20 ms, ${full} waited the full timeout; the slowest of those made after the first ${TIMEOUT_MS} ms: ${Math.round(Math.max(...results.filter((r) => r.at > TIMEOUT_MS + 50).map((r) => r.ms)))} ms`,
    );
    expect(results.length).toBeGreaterThan(300);
    // The first batch, and one probe per cooldown (1 s), wait for their timeout; on a
    // loaded machine a few calls may share the first batch.
    expect(full).toBeLessThanOrEqual(10);
    // No call waits past the first timeout (the breaker opening answers every call waiting).
    for (const r of results) {
      if (r.ms >= TIMEOUT_MS - 10) continue; // the first batch and the probes
      expect(r.ms).toBeLessThanOrEqual(Math.max(0, TIMEOUT_MS - r.at) + 150);
    }
    expect(messages.filter((m) => m.includes('store failing'))).toHaveLength(1);
  }, 20_000);
});

describe('a penalty (blockFor) through a stall', () => {
  it("'insurance' keeps denying a blocked user in every process that saw the block, with what is left of it", async () => {
    const algorithm = penalty(fixedWindow({ limit: 2, window: '1h' }), parsePenalty('1m'));
    const processes = await Promise.all(
      [0, 1].map(async () => {
        const client = await connect();
        const { messages, logger } = spyLogger();
        const limiter = new RateLimiter({
          algorithm,
          store: new RedisStore({ client, timeoutMs: 100 }),
          prefix: 'penalty-stall',
          logger,
        });
        return { limiter, messages };
      }),
    );
    const [a, b] = processes as [(typeof processes)[0], (typeof processes)[0]];
    expect((await a.limiter.consume('mallory')).allowed).toBe(true);
    expect((await b.limiter.consume('mallory')).allowed).toBe(true);
    const block = await a.limiter.consume('mallory'); // the offence: served by a
    expect(block).toMatchObject({ allowed: false });
    expect(block.retryAfterMs).toBeGreaterThan(50_000);
    expect(await b.limiter.consume('mallory')).toMatchObject({ allowed: false }); // b sees it

    server.pause();
    const during: Decision[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        for (const p of processes) during.push(await p.limiter.consume('mallory'));
        await sleep(30);
      }
      // Past the first timeout: the breakers are open, the policy decides.
      await sleep(150);
      for (const p of processes) during.push(await p.limiter.consume('mallory'));
    } finally {
      server.resume();
    }
    expect(during.filter((d) => d.allowed)).toHaveLength(0);
    for (const d of during) {
      expect(d.retryAfterMs).toBeGreaterThan(50_000);
      expect(d.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
  }, 20_000);
});

describe('a store failure in the log', () => {
  it("is one line, without the ioredis error object (its command: the script's source and the key)", async () => {
    const client = await connect();
    // A real ioredis reply error, carrying its command's arguments.
    const error = await client
      .evalsha('0'.repeat(40), 1, 'sluice:{user:carol@example.com}', 'local function gcra')
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((error as { command?: { args?: unknown[] } }).command?.args)).toMatch(/carol/);
    const failing: Store = {
      consume: () => Promise.reject(error),
      reset: () => Promise.resolve(),
    };
    const { calls, messages, logger } = spyLogger();
    const store = new FailSafeStore({ store: failing, onStoreError: 'deny', logger: logger });
    await store.consume('user:carol@example.com', gcra({ rate: 1, period: '1s' }), 1, 0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(1);
    expect(messages[0]).toMatch(/^sluice: store failing \(NOSCRIPT[^\n]*\); onStoreError 'deny'/);
    expect(messages[0]).not.toMatch(/carol|example\.com|local function|\n/);
  });
});
