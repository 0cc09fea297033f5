// GCRA on Redis TIME keeps its TAT in the key's expiry (gcra.lua.ts, the expiry form): the
// value is a shared integer (no value object), and decisions stay exact, tick for tick.
import { type Decision, gcra, RateLimiter } from '@sluice/core';
import { chargeTimeOf, StoreKeyError } from '@sluice/core/store';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { SLACK_MS } from '../src/twins/lua-common.js';

let server: RedisProcess;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  client = new Redis({ port: server.port, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

/** Redis's shared integers answer OBJECT REFCOUNT with INT_MAX: no object of their own. */
const SHARED = 2147483647;

describe.each([
  ['3/s, burst 5 (T = 1000/3 ms: 3 ticks per ms)', gcra({ rate: 3, period: '1s', burst: 5 })],
  ['1e6/s, burst 5 (T = 1 µs: 1000 ticks per ms)', gcra({ rate: 1e6, period: '1s', burst: 5 })],
  ['100/min (T = 600 ms, whole ms)', gcra({ rate: 100, period: '1m', burst: 5 })],
])('%s on Redis TIME', (_label, algorithm) => {
  const T = algorithm.emissionIntervalMs;
  const perMs = algorithm.ticksPerMs;

  it('decides tick for tick: each reset = the last + T - the time between their charges', async () => {
    const store = new RedisStore({ client, timeoutMs: 5000 });
    const prefix = `exp-${Math.random()}`;
    const limiter = new RateLimiter({ algorithm, store, prefix, onStoreError: 'deny' });
    const got: Decision[] = [];
    for (let i = 0; i < 4; i++) got.push(await limiter.consume('k'));
    const times = got.map((d) => chargeTimeOf(d)!);
    expect(times.every((t) => Number.isInteger(t))).toBe(true);
    // 1 µs intervals drain within a ms: only the slow rates stay backlogged between calls.
    if (T >= 1) expect(got.map((d) => d.remaining)).toEqual([4, 3, 2, 1]);
    for (let i = 1; i < got.length; i++) {
      const drained = Math.max(0, got[i - 1]!.resetAfterMs - (times[i]! - times[i - 1]!));
      expect(got[i]!.resetAfterMs * perMs).toBeCloseTo((drained + T) * perMs, 6);
    }
    expect(got[0]!.resetAfterMs).toBeCloseTo(T, 9);
    const key = store.keyFor(`${prefix}:k`);
    if (got.at(-1)!.resetAfterMs > 1) {
      // The expiry holds the TAT (rounded up to a whole ms) + SLACK_MS; the value, the ticks
      // short of that whole ms: a shared integer.
      const stored = Number(await client.get(key));
      expect(stored).toBeGreaterThanOrEqual(0);
      expect(stored).toBeLessThan(perMs);
      expect(await client.object('REFCOUNT', key)).toBe(SHARED);
      const tat = times.at(-1)! + got.at(-1)!.resetAfterMs;
      expect(Number(await client.call('PEXPIRETIME', key))).toBe(Math.ceil(tat) + SLACK_MS);
      expect(Math.ceil(tat) - stored / perMs).toBeCloseTo(tat, 9);
    }
  });

  it('gives back exactly what a charge took', async () => {
    const store = new RedisStore({ client, timeoutMs: 5000 });
    const limiter = new RateLimiter({ algorithm, store, prefix: `ref-${Math.random()}` });
    if (T < 1) return; // drained before the give-back: nothing to compare
    const charges: Decision[] = [];
    for (let i = 0; i < 3; i++) charges.push(await limiter.consume('k'));
    const back = await limiter.refund('k', { charge: charges[2]! });
    expect(back.remaining).toBe(3);
    const next = await limiter.consume('k');
    expect(next.remaining).toBe(2);
  });
});

describe('reads a key written in the value form (before the expiry form, or by a Redis < 7.0)', () => {
  /** Writes the value form's key: the TAT in ms since the epoch, expiring `pxMs` from now. */
  async function legacyKey(key: string, aheadMs: number, pxMs: number): Promise<void> {
    const [seconds] = await client.time();
    await client.set(key, String(Number(seconds) * 1000 + aheadMs), 'PX', pxMs);
  }

  it('from its value, whatever its expiry (ticks per ms > 1: T = 3 600 000/7 ms)', async () => {
    const algorithm = gcra({ rate: 7, period: '1h', burst: 10 });
    const store = new RedisStore({ client, timeoutMs: 5000 });
    const prefix = `legacy-${Math.random()}`;
    const limiter = new RateLimiter({ algorithm, store, prefix });
    const key = store.keyFor(`${prefix}:k`);
    await legacyKey(key, 3 * algorithm.emissionIntervalMs, 4 * 3_600_000);
    expect((await limiter.consume('k')).remaining).toBe(6);
    // Rewritten in the expiry form.
    expect(Number(await client.get(key))).toBeLessThan(algorithm.ticksPerMs);
    expect(await client.object('REFCOUNT', key)).toBe(SHARED);
  });

  it('from its expiry on whole-ms intervals: the value form set it to TAT + SLACK_MS', async () => {
    const algorithm = gcra({ rate: 1, period: '1h', burst: 10 });
    const store = new RedisStore({ client, timeoutMs: 5000 });
    const prefix = `legacy-${Math.random()}`;
    const limiter = new RateLimiter({ algorithm, store, prefix });
    const key = store.keyFor(`${prefix}:k`);
    // The TAT 3 intervals ahead, as the value form stored it: PX = ttl + SLACK_MS.
    await legacyKey(key, 3 * 3_600_000, 3 * 3_600_000 + SLACK_MS);
    const charge = await limiter.consume('k');
    expect(charge.remaining).toBe(6);
    // Only the expiry moves (PEXPIREAT); the old value is never read again on this path.
    expect(Number(await client.call('PEXPIRETIME', key))).toBe(
      chargeTimeOf(charge)! + charge.resetAfterMs + SLACK_MS,
    );
    expect((await limiter.refund('k', { charge })).remaining).toBe(7);
    expect((await limiter.consume('k')).remaining).toBe(6);
  });
});

it('whole-ms intervals keep the TAT in the expiry alone: a decision is PEXPIRETIME and PEXPIREAT', async () => {
  const algorithm = gcra({ rate: 100, period: '1m', burst: 5 });
  const store = new RedisStore({ client, timeoutMs: 5000 });
  const limiter = new RateLimiter({ algorithm, store, prefix: `calls-${Math.random()}` });
  await limiter.consume('k');
  const calls = async (command: string) =>
    Number(
      new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(
        String(await client.info('commandstats')),
      )?.[1] ?? 0,
    );
  const before = await Promise.all(['get', 'set', 'pexpiretime', 'pexpireat'].map(calls));
  for (let i = 0; i < 3; i++) await limiter.consume('k');
  const after = await Promise.all(['get', 'set', 'pexpiretime', 'pexpireat'].map(calls));
  expect(after.map((n, i) => n - before[i]!)).toEqual([0, 0, 3, 3]);
});

it("a client clock keeps the TAT in the value (the server's expiry cannot carry its time base)", async () => {
  const algorithm = gcra({ rate: 3, period: '1s', burst: 5 });
  const store = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
  const prefix = `client-${Math.random()}`;
  const limiter = new RateLimiter({ algorithm, store, prefix, clock: () => 1_000_000 });
  await limiter.consume('k');
  expect(Number(await client.get(store.keyFor(`${prefix}:k`)))).toBeCloseTo(
    1_000_000 + 1000 / 3,
    9,
  );
});

it('whole-ms intervals on Redis TIME still refuse a key of another type (WRONGTYPE, as a StoreKeyError)', async () => {
  const algorithm = gcra({ rate: 100, period: '1m' });
  const store = new RedisStore({ client, timeoutMs: 5000 });
  const prefix = `foreign-${Math.random()}`;
  await client.hset(store.keyFor(`${prefix}:k`), 'f', 'v');
  // The key's script fails (WRONGTYPE) for that key only: a StoreKeyError, naming no key.
  const error = await Promise.resolve(store.consume(`${prefix}:k`, algorithm, 1, 0)).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreKeyError);
  expect((error as Error).message).toMatch(/another Redis type/);
  expect((error as Error).message).not.toContain(prefix);
  expect(await client.hget(store.keyFor(`${prefix}:k`), 'f')).toBe('v');
});
