import { Limit, MemoryStore, type RequestView, ThrottleRegistry } from '@sluice/core';
import { ProtocolLimiter } from '@sluice/core/protocol';

const at = { ms: 1_700_000_000_000 };
const clock = () => at.ms;
const view = (over: Partial<RequestView> = {}): RequestView => ({
  method: 'GET',
  route: 'x',
  ip: '10.0.0.1',
  headers: {},
  raw: undefined,
  ...over,
});

describe('ProtocolLimiter', () => {
  it('reserves then settles: 150 charged, 40 used -> exactly 110 given back', async () => {
    const limiter = new ProtocolLimiter({ limit: Limit.perHour(1000), channel: 'graphql', clock });
    const v = await limiter.check(view(), { cost: 150 });
    expect(v.allowed).toBe(true);
    expect(v.decision.remaining).toBe(850);
    const [after] = await limiter.settle(v, 40);
    expect(after!.remaining).toBe(960);
    // larger than reserved: the excess is charged past the quota (a debt on GCRA)
    const w = await limiter.check(view(), { cost: 900 });
    const [debt] = await limiter.settle(w, 1100);
    expect(debt!.remaining).toBe(0);
    const denied = await limiter.check(view(), { cost: 1 });
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeCloseTo((141 * 3_600_000) / 1000, 3); // 140 in debt + 1
  });

  it('a cost above the whole budget: retryAfterSeconds -1, and no Retry-After header at all', async () => {
    const limiter = new ProtocolLimiter({ limit: Limit.perHour(10), channel: 'graphql', clock });
    const v = await limiter.check(view(), { cost: 11 });
    expect(v.allowed).toBe(false);
    expect(v.retryAfterSeconds).toBe(-1);
    expect(v.retryAfterHeader).toBeUndefined();
    for (const styles of [[], ['legacy'], ['draft-8']] as const) {
      const names = v.headers(styles, at.ms).map(([name]) => name);
      expect(names).not.toContain('Retry-After');
    }
    const denied = await limiter.check(view({ ip: '10.0.0.2' }), { cost: 10 });
    expect((await limiter.check(view({ ip: '10.0.0.2' }), { cost: 1 })).retryAfterHeader).toBe(
      '360',
    );
    expect(denied.retryAfterHeader).toBeUndefined(); // allowed
  });

  it('decides an array of limits all or nothing and reports the most restrictive', async () => {
    const store = new MemoryStore();
    const limiter = new ProtocolLimiter({
      limit: [Limit.perSecond(5).named('s'), Limit.perMinute(7).named('m')],
      channel: 'ws',
      store,
      clock,
    });
    const got = [];
    for (let i = 0; i < 6; i++) got.push(await limiter.check(view()));
    expect(got.map((v) => v.allowed)).toEqual([true, true, true, true, true, false]);
    expect(got[5]!.decision.limit).toBe(5);
    at.ms += 1000;
    const next = [
      await limiter.check(view()),
      await limiter.check(view()),
      await limiter.check(view()),
    ];
    // the minute limit (7) was charged 5 and only 5: 2 more pass
    expect(next.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(next[2]!.headers(['draft-8'], at.ms)).toEqual([
      ['RateLimit-Policy', '"s";q=5;w=1, "m";q=7;w=60'],
      ['RateLimit', '"s";r=3;t=1, "m";r=0;t=59'],
      ['Retry-After', '8'], // one unit of 7/min every 8.57 s, 1 s of it passed,
    ]);
  });

  it('keys by user, else IP with IPv6 by /64, else the key; per channel or route', async () => {
    const store = new MemoryStore();
    const limiter = new ProtocolLimiter({ limit: Limit.perMinute(1), channel: 'ws', store, clock });
    expect((await limiter.check(view({ ip: '2001:db8::1' }))).allowed).toBe(true);
    expect((await limiter.check(view({ ip: '2001:db8::2' }))).allowed).toBe(false); // same /64
    expect((await limiter.check(view({ ip: '2001:db8::2', userId: 7 }))).allowed).toBe(true);
    expect((await limiter.check(view(), { key: 'tenant' })).allowed).toBe(true);
    expect((await limiter.check(view({ ip: '9.9.9.9' }), { key: 'tenant' })).allowed).toBe(false);
    expect((await limiter.check(view(), { route: 'other' })).allowed).toBe(true);
  });

  it('runs named limiters with the view, and checks its options at construction', async () => {
    const throttles = new ThrottleRegistry().define('api', (req) =>
      req.userId === 'vip' ? Limit.none() : Limit.perMinute(1),
    );
    const limiter = new ProtocolLimiter({ limit: 'throttle:api', channel: 't', throttles, clock });
    expect((await limiter.check(view({ userId: 'a' }))).allowed).toBe(true);
    expect((await limiter.check(view({ userId: 'a' }))).allowed).toBe(false);
    for (let i = 0; i < 3; i++)
      expect((await limiter.check(view({ userId: 'vip' }))).allowed).toBe(true);
    expect(() => new ProtocolLimiter({ limit: '1/s', channel: '' })).toThrow(
      expect.objectContaining({ option: 'channel' }),
    );
    expect(() => new ProtocolLimiter({ limit: '1/s', channel: 'c', max: 1 } as never)).toThrow(
      /max/,
    );
    expect(() => limiter.check(view(), { cost: -1 })).toThrow(TypeError);
  });
  it('charges each limit its own cost, on limits given per call, and settles each its own units', async () => {
    const limiter = new ProtocolLimiter({ limit: Limit.none(), channel: 'ai', clock });
    const limits = [Limit.perMinute(1000).named('tokens'), Limit.perMinute(10).named('requests')];
    const v = await limiter.check(view(), { key: 'team', limits, cost: [300, 1] });
    expect(v.decisions.map((d) => d.remaining)).toEqual([700, 9]);
    const after = await limiter.settle(v, [450, 1]); // 150 past the charge: a debt; the request stays
    expect(after.map((d) => d.remaining)).toEqual([550, 9]);
    // all or nothing: the request limit refuses, the token limit is not charged
    const tight = [limits[0]!, Limit.perMinute(1).named('requests')];
    await limiter.check(view(), { key: 'other', limits: tight, cost: [10, 1] });
    const denied = await limiter.check(view(), { key: 'other', limits: tight, cost: [10, 1] });
    expect(denied.allowed).toBe(false);
    const peek = await limiter.check(view(), { key: 'other', limits: [limits[0]!], cost: [0] });
    expect(peek.decision.remaining).toBe(990);
    expect(() => limiter.check(view(), { limits, cost: [1, -1] })).toThrow(TypeError);
  });
});
