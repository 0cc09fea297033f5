// LimitOperations on a MemoryStore: what RateLimiter decides under ban / deny / allow /
// override (precedence, expiry by the injected clock, no store call for the entries),
// bad input, list / inspect / top, and MemoryStore's in-process OperationsSync.
import { EPOCH } from '@sluice/test-kit';
import {
  fixedWindow,
  gcra,
  LimitOperations,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  type Store,
} from '../../src/index.js';

function setup() {
  const time = { now: EPOCH };
  const clock = () => time.now;
  const store = new MemoryStore();
  const ops = new LimitOperations({ store, clock });
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 2, period: '1m', burst: 2 }),
    store,
    clock,
  });
  return { time, clock, store, ops, limiter };
}

describe('LimitOperations: bad input', () => {
  const { ops } = setup();
  it.each([
    ['an unparsable CIDR', () => ops.deny('10.0.0.0/40'), 'subject'],
    ['a CIDR with three parts', () => ops.allow('10.0.0/8'), 'subject'],
    ['an IP that is not one', () => ops.ban({ ip: 'example.com' }, { for: '1h' }), 'subject'],
    [
      'a subject of two kinds',
      () => ops.ban({ ip: '1.2.3.4', user: 'x' } as never, { for: '1h' }),
      'subject',
    ],
    ['an empty user', () => ops.ban({ user: '' }, { for: '1h' }), 'subject'],
    ['a ban without for', () => ops.ban({ user: 'x' }, {} as never), 'for'],
    ['a ban for 0 ms', () => ops.ban({ user: 'x' }, { for: 0 }), 'for'],
    [
      'an override that is not a limit',
      () => ops.override({ user: 'x' }, 'lots', { for: '1h' }),
      'limit',
    ],
    [
      'an override naming a limiter',
      () => ops.override({ user: 'x' }, 'throttle:api', { for: '1h' }),
      'limit',
    ],
    ['an override without for', () => ops.override({ user: 'x' }, '10/1m', {} as never), 'for'],
    [
      'an override of a CIDR',
      () => ops.override({ cidr: '10.0.0.0/8' }, '10/1m', { for: '1h' }),
      'subject',
    ],
  ])('%s: SluiceConfigError naming it, at the call', (_what, call, option) => {
    let error: unknown;
    try {
      call();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
  });

  it('a store without operations: an error saying it cannot share them', () => {
    const bare: Store = { consume: () => ({}) as never, reset: () => undefined };
    expect(() => new LimitOperations({ store: bare })).toThrow(/cannot share operations/);
    expect(() => new LimitOperations({ store: new MemoryStore(), syncMS: 5 } as never)).toThrow(
      /unknown option "syncMS"/,
    );
  });
});

describe('LimitOperations with RateLimiter (memory store)', () => {
  it('ban: denied with retryAfterMs = what is left, uncharged; ends by itself; unban lifts it at once', async () => {
    const { time, ops, limiter } = setup();
    await ops.ban({ key: 'k' }, { for: '10s', reason: 'test' });
    const banned = await limiter.consume('k');
    expect(banned).toMatchObject({ allowed: false, retryAfterMs: 10_000, remaining: 0 });
    expect((await limiter.consume('other')).allowed).toBe(true);
    time.now += 4000;
    expect((await limiter.consume('k')).retryAfterMs).toBe(6000);
    time.now += 6000;
    // expired by itself: the whole quota is there (the ban charged nothing)
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 1 });
    await ops.ban({ key: 'k' }, { for: '1h' });
    expect((await limiter.consume('k')).allowed).toBe(false);
    await ops.unban({ key: 'k' });
    expect((await limiter.consume('k')).allowed).toBe(true);
  });

  it('precedence: allow > deny > ban > override > the configured limit', async () => {
    const { ops, limiter } = setup();
    await ops.override({ key: 'k' }, '100/1m', { for: '1h' });
    expect((await limiter.consume('k')).limit).toBe(100);
    const ban = await ops.ban({ key: 'k' }, { for: '1h' });
    expect((await limiter.consume('k')).retryAfterMs).toBe(3_600_000);
    const deny = await ops.deny({ key: 'k' });
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, retryAfterMs: -1 });
    await ops.allow({ key: 'k' });
    for (let i = 0; i < 5; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    expect((await ops.list()).map((e) => e.kind)).toEqual(['allow', 'deny', 'ban', 'override']);
    await ops.remove('allow:key:k');
    await ops.remove(deny);
    await ops.remove(ban.id);
    expect((await limiter.consume('k')).limit).toBe(100);
  });

  it('override: windows keep their count; raising applies from the next decision', async () => {
    const time = { now: EPOCH };
    const store = new MemoryStore();
    const ops = new LimitOperations({ store, clock: () => time.now });
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 3, window: '1m' }),
      store,
      clock: () => time.now,
    });
    for (let i = 0; i < 3; i++) expect((await limiter.consume('w')).allowed).toBe(true);
    expect((await limiter.consume('w')).allowed).toBe(false);
    await ops.override({ key: 'w' }, '5/1m', { for: '1h' });
    // 3 counted in this window: 2 more under the new limit of 5
    expect(await limiter.consume('w')).toMatchObject({ allowed: true, limit: 5, remaining: 1 });
    expect((await limiter.consume('w')).allowed).toBe(true);
    expect((await limiter.consume('w')).allowed).toBe(false);
    await ops.override({ key: 'w' }, '2/1m', { for: '1h' });
    // lowering never forgives: 5 counted, limit 2
    expect(await limiter.consume('w')).toMatchObject({ allowed: false, limit: 2 });
  });

  it('an entry written with another prefix does not apply; an override narrowed to a name never applies to a RateLimiter', async () => {
    const { ops, store, limiter, clock } = setup();
    const other = new LimitOperations({ store, prefix: 'other', clock });
    await other.ban({ key: 'k' }, { for: '1h' });
    expect((await limiter.consume('k')).allowed).toBe(true);
    await ops.override({ key: 'k' }, '100/1m', { for: '1h', name: 'api' });
    expect((await limiter.consume('k')).limit).toBe(2);
  });

  it('list, inspect and top: entries in force, where a key stands, the most denied (hashed unless asked)', async () => {
    const { time, ops, limiter } = setup();
    await ops.ban({ key: 'a' }, { for: '1s' });
    await ops.deny('10.0.0.0/8', { reason: 'hostile' });
    await limiter.consume('b');
    for (let i = 0; i < 5; i++) await limiter.consume('a');
    for (let i = 0; i < 3; i++) await limiter.consume('b');
    const inspection = await ops.inspect({ key: 'b' });
    expect(inspection.blockedUntil).toBeNull();
    expect(inspection.limits).toEqual([
      { name: undefined, key: 'sl:b', remaining: 0, limit: 2, resetMs: 60_000 },
    ]);
    expect((await ops.inspect({ key: 'a' })).blockedUntil).toBe(EPOCH + 1000);
    expect((await ops.inspect({ ip: '10.2.3.4' })).entries.map((e) => e.id)).toEqual([
      'deny:cidr:10.0.0.0/8',
    ]);
    expect(ops.top(2, { ids: true })).toEqual([
      { id: 'key:a', count: 5, error: 0 },
      { id: 'key:b', count: 2, error: 0 },
    ]);
    const hashed = ops.top(1);
    expect(hashed[0]!.id).toMatch(/^[\w-]{16}$/);
    expect(hashed[0]!.id).not.toContain('key:');
    time.now += 1000;
    expect((await ops.list()).map((e) => e.id)).toEqual(['deny:cidr:10.0.0.0/8']);
  });

  it("MemoryStore's operations: this process only, a version per prefix, listeners told synchronously", async () => {
    const store = new MemoryStore();
    const sync = store.operations!;
    expect(sync.shared).toBe(false);
    const seen: number[] = [];
    const stop = sync.subscribe('sl', (v) => seen.push(v));
    const entry = { id: 'ban:key:x', kind: 'ban' as const, subject: { key: 'x' }, until: 1, at: 0 };
    expect(await sync.put('sl', entry)).toBe(1);
    entry.until = 99; // the store keeps its own copy
    expect((await sync.load('sl')).entries[0]!.until).toBe(1);
    expect(await sync.remove('sl', 'ban:key:x')).toBe(2);
    expect(await sync.version('sl')).toBe(2);
    expect(await sync.version('other')).toBe(0);
    stop();
    await sync.put('sl', entry);
    expect(seen).toEqual([1, 2]);
  });
});
