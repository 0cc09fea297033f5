// RedisStore on a Valkey GLIDE GlideClient while its redis-server is gone (SIGKILL, then
// started again on its port) or stalled (SIGSTOP, then SIGCONT). GLIDE tells no connection
// state and holds a call while it reconnects, up to its `requestTimeout` (20 s here): the
// store pings the server after a call fails or times out, and until a PING answers every
// call fails at once, unsent ('sluice: the Redis client is reconnecting'), as on ioredis
// and node-redis while they reconnect. The bound: the first call of an outage waits the
// store's `timeoutMs` (nothing has told the store yet); every later one rejects before the
// event loop's next turn (no I/O: `down()` answers before the send). Counted, not timed:
// each call's outcome, and whether it settled before a `setImmediate` queued after it.
// Nothing of the outage is charged in Redis, and decisions resume once the server is back;
// a limiter's breaker probes fail at once too.
import { gcra, RateLimiter, type Store } from '@sluice/core';
import { StoreTimeoutError } from '@sluice/core/store';
import { EPOCH, type RedisProcess, startRedis } from '@sluice/test-kit';
import type { GlideClient } from '@valkey/valkey-glide';
import { RedisStore } from '../src/index.js';
import { connectGlide } from './glide.js';

const TIMEOUT_MS = 200;
const LIMIT = 5;
const algorithm = gcra({ rate: LIMIT, period: '1h' });
const DOWN = 'sluice: the Redis client is reconnecting';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let server: RedisProcess;
let client: GlideClient;

beforeAll(async () => {
  server = await startRedis();
  client = (await connectGlide({ cluster: false, port: server.port })) as GlideClient;
}, 30_000);

afterAll(async () => {
  client?.close();
  server?.resume();
  await server?.stop();
});

type Outcome = 'decided' | 'timeout' | 'down' | 'other';

/** A call's outcome, and whether it settled before the event loop's next turn. */
async function outcome(call: () => unknown): Promise<{ outcome: Outcome; atOnce: boolean }> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  try {
    await call();
    return { outcome: 'decided', atOnce: !turned };
  } catch (error) {
    const atOnce = !turned;
    if (error instanceof StoreTimeoutError) return { outcome: 'timeout', atOnce };
    return { outcome: (error as Error).message === DOWN ? 'down' : 'other', atOnce };
  }
}

/** Calls `store.consume` on `key` until Redis decides it (at most 15 s). */
async function untilDecided(store: RedisStore, key: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  for (;;) {
    try {
      await store.consume(key, algorithm, 1, EPOCH);
      return;
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await sleep(20);
    }
  }
}

describe.each([
  ['SIGKILLed, then started again', 'kill'],
  ['stalled (SIGSTOP), then SIGCONT', 'stall'],
] as const)('redis-server %s', (_label, fault) => {
  it('the first call is sent, every later one fails at once, unsent; nothing of the outage is charged; decisions resume', async () => {
    const prefix = `${fault}:`;
    const store = new RedisStore({ client, prefix, timeoutMs: TIMEOUT_MS, clock: 'client' });
    const key = 'user';
    expect(await store.consume(key, algorithm, 1, EPOCH)).toMatchObject({
      allowed: true,
      remaining: LIMIT - 1,
    });

    if (fault === 'kill') await server.kill();
    else server.pause();
    let outage: { outcome: Outcome; atOnce: boolean }[];
    try {
      // The first call: sent, held by GLIDE (reconnecting, or the server stalled) until the
      // store's timeout, or failed by GLIDE if it was in flight as the connection dropped.
      const first = await outcome(() => store.consume(key, algorithm, 1, EPOCH));
      expect(first.atOnce).toBe(false);
      expect(['timeout', 'other']).toContain(first.outcome);
      // Calls one at a time and in bursts, for about 1 s: decisions, bans' reads, resets.
      outage = [];
      for (let round = 0; round < 10; round++) {
        outage.push(await outcome(() => store.consume(key, algorithm, 1, EPOCH)));
        outage.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              outcome(() => store.consume(`other-${i}`, algorithm, 1, EPOCH)),
            ),
          )),
        );
        outage.push(await outcome(() => store.reset(round === 0 ? key : `other-${round}`)));
        await sleep(100);
      }
    } finally {
      if (fault === 'kill') await server.start();
      else server.resume();
    }
    expect(outage.length).toBe(120);
    expect(outage.filter((o) => o.outcome === 'down' && o.atOnce).length).toBe(120);

    // Back: decided by Redis again (GLIDE's reconnect, the store's PING, then this call).
    await untilDecided(store, 'probe');
    await sleep(100); // a late reply of the outage would be in
    // Nothing of the outage reached Redis's data: the first call's script ran past its
    // deadline (stalled) or was lost with the server (killed), the others were never sent.
    const written = (await server.cli('KEYS', `${prefix}*`)).split('\n').filter(Boolean).sort();
    expect(written).toEqual(
      fault === 'kill' ? [`${prefix}probe`] : [`${prefix}probe`, `${prefix}${key}`].sort(),
    );
    const expectedUser = fault === 'kill' ? LIMIT - 1 : LIMIT - 2;
    expect(await store.consume(key, algorithm, 1, EPOCH)).toMatchObject({
      allowed: true,
      remaining: expectedUser,
    });
  }, 40_000);
});

it("a limiter on it: the breaker's probes fail at once after the first; onStoreError 'deny' decides the outage, logged once; back on Redis after", async () => {
  const messages: string[] = [];
  const redis = new RedisStore({ client, prefix: 'limiter:', timeoutMs: TIMEOUT_MS });
  /** How each call the limiter let through to the store during the outage ended. */
  const seen: Outcome[] = [];
  let watching = false;
  const store: Store = {
    consume: (key, alg, cost, nowMs) =>
      Promise.resolve(redis.consume(key, alg, cost, nowMs)).catch((error: unknown) => {
        if (watching) {
          seen.push(
            error instanceof StoreTimeoutError
              ? 'timeout'
              : (error as Error).message === DOWN
                ? 'down'
                : 'other',
          );
        }
        throw error;
      }),
    reset: (key) => redis.reset(key),
  };
  const limiter = new RateLimiter({
    algorithm,
    store,
    onStoreError: 'deny',
    logger: { warn: (m: string) => void messages.push(m) },
    breaker: { cooldownMs: 50 },
  });
  expect(await limiter.consume('warm')).toMatchObject({ allowed: true });
  await server.kill();
  watching = true;
  const decisions = [];
  try {
    // 50 ms cooldown: the breaker lets a probe through to the store every 50 ms, which
    // fails at once (unsent) after the first.
    for (let i = 0; i < 40; i++) {
      decisions.push(await limiter.consume(`u${i % 4}`));
      await sleep(25);
    }
  } finally {
    watching = false;
    await server.start();
  }
  expect(decisions.filter((d) => d.allowed)).toEqual([]);
  // 40 requests over at least 1 s, a probe 50 ms after each failed one: at least 5 probes.
  expect(['timeout', 'other']).toContain(seen[0]); // sent (see above)
  expect(seen.length).toBeGreaterThanOrEqual(5);
  expect(seen.slice(1).filter((o) => o !== 'down')).toEqual([]);
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatch(/store failing .*onStoreError 'deny'/);
  const deadline = performance.now() + 15_000;
  while (!messages.some((m) => m.includes('answering again'))) {
    if (performance.now() > deadline) throw new Error(`no recovery: ${JSON.stringify(messages)}`);
    await limiter.consume('probe');
    await sleep(20);
  }
  expect(await limiter.consume('u0')).toMatchObject({ allowed: true, remaining: LIMIT - 1 });
  expect(messages).toHaveLength(2);
}, 40_000);
