// "Spraying keys cannot reset someone else's bucket": eviction in MemoryStore is
// fair between key spaces and keeps currently denied keys last.

import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import {
  fixedWindow,
  gcra,
  Limit,
  MemoryStore,
  RateLimiter,
  type RequestView,
  ThrottleRegistry,
} from '../../src/index.js';

/** 5 per minute: the sixth request within the minute is denied for 12 s. */
const login = gcra({ rate: 5, period: '1m' });
/** A cheap route's limit: nothing expires or is denied during a test. */
const cheap = gcra({ rate: 1, period: '1h', burst: 100 });

/** Consumes `key` until denied; returns the denial. */
function exhaust(consume: () => { allowed: boolean; retryAfterMs: number }) {
  for (let i = 0; i < 100; i++) {
    const d = consume();
    if (!d.allowed) return d;
  }
  throw new Error('never denied');
}

describe('MemoryStore eviction', () => {
  it('1,000,000 keys sprayed through one limiter leave the keys of another limiter as they were', async () => {
    const store = new MemoryStore({ maxKeys: 1000 });
    const now = EPOCH;
    const loginLimiter = new RateLimiter({
      algorithm: login,
      store,
      prefix: 'login',
      clock: () => now,
    });
    for (let i = 0; i < 6; i++) await loginLimiter.consume('victim');
    expect((await loginLimiter.peek('victim')).remaining).toBe(0);
    await loginLimiter.consume('half', { cost: 2 }); // not denied: 3 of 5 left
    // The sprayer: another RateLimiter on the same store (prefix `api`), its scope's store.
    const api = store.scope('api:');
    for (let i = 0; i < 1_000_000; i++) {
      if (!(api.consume(`ip${i}`, cheap, 1, now) as { allowed: boolean }).allowed)
        throw new Error(`fresh key ip${i} denied`);
    }
    expect(store.size).toBe(1000);
    const again = await loginLimiter.consume('victim');
    expect(again).toMatchObject({ allowed: false, remaining: 0 });
    expect((await loginLimiter.peek('half')).remaining).toBe(3);
    // The sprayer keeps its most recent keys.
    expect(store.inspect('api:ip999999')).toBeDefined();
    expect(store.inspect('api:ip999000')).toBeUndefined();
  });

  it('spraying flat keys of one limit name does not evict the flat keys of another', () => {
    const store = new MemoryStore({ maxKeys: 500 });
    const victim = 'sl:login:POST /login:ip:203.0.113.9';
    const denial = exhaust(() => store.consume(victim, login, 1, EPOCH));
    expect(denial.retryAfterMs).toBe(12_000);
    store.consume('sl:login:POST /login:ip:203.0.113.10', login, 1, EPOCH);
    for (let i = 0; i < 200_000; i++) {
      store.consume(
        `sl:api:GET /cheap:ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`,
        cheap,
        1,
        EPOCH,
      );
    }
    expect(store.size).toBe(500);
    expect(store.consume(victim, login, 1, EPOCH).allowed).toBe(false);
    expect(store.consume('sl:login:POST /login:ip:203.0.113.10', login, 0, EPOCH).remaining).toBe(
      4,
    );
  });

  it('1,000,000 distinct IPs on a cheap route leave an exhausted POST /login bucket denied (HttpLimiter, default maxKeys)', () => {
    const store = new MemoryStore();
    const now = EPOCH;
    const registry = new ThrottleRegistry();
    registry.define('login', (req) => Limit.perMinute(5).by(req.ip));
    // A per-request (named) limit: its keys are flat; a static one: a key space per route.
    const named = new HttpLimiter({
      store,
      limit: 'throttle:login',
      throttles: registry,
      clock: () => now,
    });
    const loginRoute = new HttpLimiter({ store, limit: 'throttle:5,1', clock: () => now });
    const cheapRoute = new HttpLimiter({ store, limit: 'throttle:1000,60', clock: () => now });
    const headers = {};
    // raw: null, no ledger of charges per request (a request here has one limit): 1M fast views.
    const view = (route: string, ip: string): RequestView => ({
      method: route.slice(0, route.indexOf(' ')),
      route,
      ip,
      headers,
      raw: null,
    });
    const attacker = '198.51.100.7';
    for (let i = 0; i < 6; i++) {
      named.check(view('POST /login', attacker));
      loginRoute.check(view('POST /login', attacker));
    }
    const before = loginRoute.check(view('POST /login', attacker)) as HttpVerdict;
    expect(before.allowed).toBe(false);
    for (let i = 0; i < 1_000_000; i++) {
      const ip = `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
      cheapRoute.check(view('GET /cheap', ip));
    }
    expect(store.size).toBe(100_000);
    const after = loginRoute.check(view('POST /login', attacker)) as HttpVerdict;
    expect(after.allowed).toBe(false);
    expect(after.statusCode).toBe(429);
    expect((named.check(view('POST /login', attacker)) as HttpVerdict).allowed).toBe(false);
  }, 15_000);

  it('a denied key survives spraying of its own key space until its retry time', async () => {
    let now = EPOCH;
    const store = new MemoryStore({ maxKeys: 100 });
    const limiter = new RateLimiter({ algorithm: login, store, prefix: 'login', clock: () => now });
    const denial = exhaust(() => store.scope('login:').consume('victim', login, 1, now) as never);
    expect(denial.retryAfterMs).toBe(12_000);
    for (let i = 0; i < 10_000; i++) await limiter.consume(`ip${i}`);
    expect(store.size).toBe(100);
    expect((await limiter.consume('victim')).allowed).toBe(false); // denied again, until +12 s
    // Past its retry time the key is no longer denied: spraying may now evict it.
    now += 12_000;
    for (let i = 0; i < 100; i++) await limiter.consume(`late${i}`);
    expect(store.inspect('login:victim')).toBeUndefined();
  });

  it('evicts open keys of a key space before its denied ones, and a denied one when nothing else is left', () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const space = store.scope('s:');
    const consume = (key: string) =>
      space.consume(key, login, 1, EPOCH) as { allowed: boolean; retryAfterMs: number };
    exhaust(() => consume('a'));
    consume('b');
    exhaust(() => consume('c'));
    consume('d'); // full: b is the only open key
    expect(store.inspect('s:b')).toBeUndefined();
    expect(store.inspect('s:a')).toBeDefined();
    expect(store.inspect('s:c')).toBeDefined();
    exhaust(() => consume('d'));
    consume('e'); // every key denied: the least recently denied (a) goes
    expect(store.inspect('s:a')).toBeUndefined();
    expect(['s:c', 's:d', 's:e'].map((k) => store.inspect(k) !== undefined)).toEqual([
      true,
      true,
      true,
    ]);
    expect(store.size).toBe(3);
  });

  it('gives a new key space room from a key space over its share; at its share a space evicts its own', () => {
    const store = new MemoryStore({ maxKeys: 4 });
    const a = store.scope('a:');
    const b = store.scope('b:');
    const c = store.scope('c:');
    for (const k of ['1', '2']) a.consume(k, cheap, 1, EPOCH);
    for (const k of ['1', '2']) b.consume(k, cheap, 1, EPOCH);
    // A tie: a holds its share (4 / 2), so its next key evicts its own least recently used.
    a.consume('3', cheap, 1, EPOCH);
    expect(['a:1', 'a:2', 'a:3', 'b:1', 'b:2'].map((k) => store.inspect(k) !== undefined)).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
    // c holds nothing (share 4 / 3): room comes from a or b, each over its share.
    c.consume('1', cheap, 1, EPOCH);
    expect(store.size).toBe(4);
    expect(store.inspect('c:1')).toBeDefined();
    const gone = () => ['a:2', 'a:3', 'b:1', 'b:2'].filter((k) => store.inspect(k) === undefined);
    // Only a least recently used key of a space over its share goes (a:2 or b:1).
    expect(gone()).toHaveLength(1);
    expect(['a:2', 'b:1']).toContain(gone()[0]);
    // c (1 key, under its share of 4 / 3) keeps taking room from the others, never its own.
    c.consume('2', cheap, 1, EPOCH);
    expect(['c:1', 'c:2'].every((k) => store.inspect(k) !== undefined)).toBe(true);
    expect(gone()).toHaveLength(2);
    // Now every space holds its share or less: c's next key evicts its own.
    c.consume('3', cheap, 1, EPOCH);
    expect(store.inspect('c:1')).toBeUndefined();
    expect(gone()).toHaveLength(2);
    expect(store.size).toBe(4);
  });

  it('drops an expired key before evicting a live one, and size and prune count across key spaces', () => {
    let now = EPOCH;
    const store = new MemoryStore({ maxKeys: 3 });
    const short = fixedWindow({ limit: 10, window: 1000 });
    store.scope('y:').consume('1', cheap, 1, now); // slot 0: the least recently used key
    store.scope('x:').consume('old', short, 1, now); // slot 1, expires at EPOCH + 1000
    store.scope('y:').consume('2', cheap, 1, now);
    now += 1000;
    store.scope('y:').consume('3', cheap, 1, now); // y is at its share: but x:old has expired
    expect(store.inspect('x:old')).toBeUndefined();
    expect(['y:1', 'y:2', 'y:3'].every((k) => store.inspect(k) !== undefined)).toBe(true);
    expect(store.size).toBe(3);

    store.scope('x:').consume('a', short, 1, now);
    expect(store.size).toBe(3);
    now += 1000;
    expect(store.prune(now)).toBe(1); // x:a
    expect(store.size).toBe(2);
    store.clear();
    expect(store.size).toBe(0);
    // After clear, the store fills and evicts as new.
    for (const k of ['1', '2', '3', '4']) store.scope('z:').consume(k, cheap, 1, now);
    expect(store.size).toBe(3);
    expect(store.inspect('z:1')).toBeUndefined();
    store.reset('z:4');
    expect(store.size).toBe(2);
  });
});
