// A reply late in transit: Redis runs the script in time (its deadline has not passed), but
// the reply reaches this process after `timeoutMs` (250 ms; replies held 1 s), when the
// caller was already answered by `onStoreError` (or its node's breaker gave the call up).
// What the script charged must be given back: the call leaves nothing charged. Replies are held up by a TCP proxy that
// delays only Redis's replies (test-kit reply-delay.ts), on every client.
import { fixedWindow, RateLimiter, slidingLog } from '@sluice/core';
import type { Algorithm, StoreRequest } from '@sluice/core/store';
import { type RedisProcess, type ReplyDelay, replyDelayProxy, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore, StoreTimeoutError } from '../src/index.js';
import { CLIENT_KINDS, connect, type TestClient } from './clients.js';

const TIMEOUT_MS = 250;
const DELAY_MS = 1000;
const LIMIT = 1000;
const algorithm = fixedWindow({ limit: LIMIT, window: '1h' });
const log = slidingLog({ limit: LIMIT, window: '1h' });

let server: RedisProcess;
let direct: Redis;
let proxy: ReplyDelay;

beforeAll(async () => {
  server = await startRedis();
  direct = new Redis({ host: '127.0.0.1', port: server.port });
  proxy = await replyDelayProxy(server.port);
}, 30_000);

afterAll(async () => {
  direct?.disconnect();
  await proxy?.close();
  await server?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Runs `warm` until it passes (a loaded machine may time a warm-up call out), 10 tries. */
async function retried(warm: () => Promise<unknown>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await warm();
      return;
    } catch (error) {
      if (i === 9) throw error;
      await sleep(300); // past a breaker the failed warm-up opened (its cooldown: 1 s)
    }
  }
}

/** What `key` has left in Redis, read without the proxy. */
async function left(store: RedisStore, key: string, algo: Algorithm = algorithm): Promise<number> {
  const truth = new RedisStore({ client: direct, prefix: store.prefix });
  return (await truth.consume(key, algo, 0, Date.now())).remaining;
}

/** Waits until `key` has `expected` left (the late replies and their give-backs are in), or 5 s. */
async function settle(
  store: RedisStore,
  key: string,
  expected: number,
  algo: Algorithm = algorithm,
) {
  const until = performance.now() + 5000;
  let now = await left(store, key, algo);
  while (now !== expected && performance.now() < until) {
    await sleep(50);
    now = await left(store, key, algo);
  }
  return now;
}

describe.each(CLIENT_KINDS)('%s: replies late in transit', (kind) => {
  let c: TestClient;
  let store: RedisStore;

  beforeAll(async () => {
    c = await connect(kind, { topology: 'standalone', port: proxy.port });
    store = new RedisStore({ client: c.client, timeoutMs: TIMEOUT_MS, prefix: `${kind}:` });
    // A first reply: the store learns how Redis's clock stands to ours, so every later call
    // carries a deadline (and runs in time: only its reply is late). Every script is loaded
    // (a NOSCRIPT answer, late too, would make the call expire before it runs).
    const warm = { key: 'warm-log', algorithm: log, cost: 1 } as StoreRequest;
    await retried(async () => {
      await Promise.all([1, 2, 3].map(() => store.consume('warm', algorithm, 1, Date.now())));
      await store.consume('warm', algorithm, 1, Date.now());
      await Promise.all([1, 2].map(() => store.consumeAll([warm], Date.now())));
    });
  });

  afterAll(async () => {
    proxy.delay(0);
    await c?.close();
  });

  test('30 single-key calls time out: what Redis charged is given back', async () => {
    proxy.delay(DELAY_MS);
    const calls = Array.from({ length: 30 }, () =>
      store.consume('single', algorithm, 1, Date.now()),
    );
    const results = await Promise.allSettled(calls);
    proxy.delay(0);
    expect(
      results.map((r) => r.status === 'rejected' && r.reason instanceof StoreTimeoutError),
    ).toEqual(Array(30).fill(true));
    expect(await settle(store, 'single', LIMIT)).toBe(LIMIT);
  });

  test('30 all-or-nothing requests of two keys time out: both keys given back', async () => {
    proxy.delay(DELAY_MS);
    const request = (key: string): StoreRequest =>
      ({ key, algorithm: log, cost: 1 }) as StoreRequest;
    const calls = Array.from({ length: 30 }, () =>
      store.consumeAll([request('multi:a'), request('multi:b')], Date.now()),
    );
    const results = await Promise.allSettled(calls);
    proxy.delay(0);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(await settle(store, 'multi:a', LIMIT, log)).toBe(LIMIT);
    expect(await settle(store, 'multi:b', LIMIT, log)).toBe(LIMIT);
  });

  test("300 requests a second for 1 s through a limiter ('deny', breaker): none stays charged", async () => {
    const limiter = new RateLimiter({
      algorithm,
      store,
      prefix: 'paced',
      onStoreError: 'deny',
      logger: { warn: () => undefined },
    });
    await retried(async () => {
      if (!(await limiter.consume('warm')).allowed) throw new Error('the warm-up was denied');
    });
    proxy.delay(DELAY_MS);
    const decisions = [];
    const start = performance.now();
    for (let i = 0; i < 300; i++) {
      await sleep(start + (i * 1000) / 300 - performance.now());
      decisions.push(limiter.consume('k'));
    }
    const answered = await Promise.all(decisions);
    proxy.delay(0);
    // Every one was answered by the policy ('deny'): none was admitted.
    expect(answered.filter((d) => d.allowed)).toHaveLength(0);
    const key = 'paced:k';
    expect(await settle(store, key, LIMIT)).toBe(LIMIT);
  }, 20_000);
});
