// Wildcard subjects in operator entries, on any store with operations: `*` in a user or key
// subject matches any run of characters, `\*` a literal star; an exact entry wins over a
// pattern, of two patterns the one with more literal characters; list() shows the pattern
// as written; a bad pattern is refused naming its field. The entries make the round trip
// through the store (written, then loaded back into the snapshot that decides). Each
// store's tests call it.
import {
  gcra,
  LimitOperations,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
  type Store,
} from '@sluice/core';
import { HttpLimiter, type HttpVerdict } from '@sluice/core/http';

let prefixes = 0;

/**
 * Defines the tests on the store `make()` gives (the same store may be given each time:
 * every test works under a prefix of its own). Clocks are fake, starting at the real time
 * (a shared store prunes entries by the caller's time).
 */
export function describeWildcardSubjects(make: () => Store | Promise<Store>): void {
  async function setup() {
    const time = { now: Date.now() };
    const clock = () => time.now;
    const store = await make();
    const prefix = `wild${++prefixes}`;
    const ops = new LimitOperations({ store, clock, prefix });
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1m' }),
      store,
      clock,
      prefix,
    });
    const http = new HttpLimiter({ store, clock, prefix, limit: '2/1m' });
    const check = async (userId: string) => {
      const view: RequestView = {
        method: 'GET',
        route: 'GET /a',
        ip: '10.0.0.1',
        headers: {},
        raw: {},
        userId,
      };
      return (await http.check(view)) as HttpVerdict;
    };
    return { time, ops, limiter, check };
  }

  it('an override of user premium_* reaches every premium user; an exact override wins', async () => {
    const { ops, check } = await setup();
    await ops.override({ user: 'premium_*' }, '5/1m', { for: '1h' });
    await ops.override({ user: 'premium_vip' }, '9/1m', { for: '1h' });
    expect((await check('premium_42')).decisions[0]).toMatchObject({ limit: 5, remaining: 4 });
    expect((await check('premium_vip')).decisions[0]).toMatchObject({ limit: 9 });
    expect((await check('free_42')).decisions[0]).toMatchObject({ limit: 2 });
    // a pattern is a prefix: the subject must start with it
    expect((await check('xpremium_1')).decisions[0]).toMatchObject({ limit: 2 });
  });

  it('a ban of key tenant:*:bot denies those keys only; the pattern with more literal characters wins', async () => {
    const { ops, limiter } = await setup();
    await ops.ban({ key: 'tenant:*' }, { for: '1h' });
    await ops.ban({ key: 'tenant:*:bot' }, { for: '2h' });
    const bot = await limiter.consume('tenant:7:bot');
    expect(bot.allowed).toBe(false);
    expect(bot.retryAfterMs).toBe(7_200_000);
    expect((await limiter.consume('tenant:7:app')).retryAfterMs).toBe(3_600_000);
    expect((await limiter.consume('other:7:bot')).allowed).toBe(true);
    // an allow of one key still comes first (allow > ban)
    await ops.allow({ key: 'tenant:8:bot' });
    expect((await limiter.consume('tenant:8:bot')).allowed).toBe(true);
  });

  it('\\* is a literal star: the entry is exact', async () => {
    const { ops, limiter } = await setup();
    await ops.deny({ key: 'a\\*b' });
    expect((await limiter.consume('a*b')).allowed).toBe(false);
    expect((await limiter.consume('axb')).allowed).toBe(true);
  });

  it('list() shows the pattern as written; unban(pattern) lifts it; inspect() finds it', async () => {
    const { ops, limiter } = await setup();
    await ops.ban({ user: 'bot_*' }, { for: '1h', reason: 'crawler' });
    await ops.ban({ key: 'k*' }, { for: '1h' });
    const listed = await ops.list();
    expect(listed.map((e) => e.subject)).toEqual([{ key: 'k*' }, { user: 'bot_*' }]);
    expect(listed.map((e) => e.id)).toEqual(['ban:key:k*', 'ban:user:bot_*']);
    const seen = await ops.inspect({ user: 'bot_3' });
    expect(seen.entries.map((e) => e.id)).toEqual(['ban:user:bot_*']);
    expect(seen.blockedUntil).toBe(listed[1]!.until);
    expect((await limiter.consume('k1')).allowed).toBe(false);
    await ops.unban({ key: 'k*' });
    expect((await limiter.consume('k1')).allowed).toBe(true);
  });

  it('refuses a bad pattern at the call, naming the field', async () => {
    const { ops } = await setup();
    const refused = async (call: () => Promise<unknown>) => {
      let error: unknown;
      try {
        await call();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SluiceConfigError);
      // the pattern is a user's or key's text: never in the message
      expect((error as Error).message).not.toMatch(/a\*\*b/);
      return (error as SluiceConfigError).option;
    };
    expect(await refused(() => ops.ban({ user: 'a**b' }, { for: '1h' }))).toBe('subject.user');
    expect(await refused(() => ops.override({ key: '*' }, '5/1m', { for: '1h' }))).toBe(
      'subject.key',
    );
    expect(await ops.list()).toEqual([]);
  });
}
