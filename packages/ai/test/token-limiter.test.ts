// tokenLimiter's contract beyond the LiteLLM cases: options, charge states, signal, money,
// named limiters, store round trips.

import { tokenLimiter } from '@sluice/ai';
import {
  Limit,
  MemoryStore,
  SluiceConfigError,
  type Store,
  slidingWindow,
  ThrottleRegistry,
} from '@sluice/core';

const T0 = 1_700_000_000_000;
const body = (max_tokens = 100) => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content: 'Hi' }],
  max_tokens,
});

/** A MemoryStore whose calls are counted by method. */
function countingStore(): { store: Store; calls: Record<string, number> } {
  const inner = new MemoryStore();
  const calls: Record<string, number> = {};
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, target);
      void receiver;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls[prop] = (calls[prop] ?? 0) + 1;
        return v.apply(target, args);
      };
    },
  });
  return { store, calls };
}

describe('tokenLimiter options', () => {
  it('names every unknown option in one message', () => {
    expect(() => tokenLimiter({ limit: '1000/min', windowMs: 1, max: 2 } as never)).toThrow(
      /windowMs.*max|max.*windowMs/,
    );
  });
  it('needs a token limit, a price for a budget, and algorithms that carry a debt', () => {
    expect(() => tokenLimiter({ requests: '10/min' })).toThrow(SluiceConfigError);
    expect(() => tokenLimiter({ limit: '1000/min', budget: '100/day' })).toThrow(/"price"/);
    expect(() => tokenLimiter({ limit: '1000/min', estimate: { output: -1 } })).toThrow(
      /"estimate.output"/,
    );
    expect(() => tokenLimiter({ limit: '1000/min', estimate: { outputs: 5 } as never })).toThrow(
      /outputs/,
    );
    expect(() =>
      tokenLimiter({
        limit: '1000/min',
        algorithm: ({ limit, periodMs }) => slidingWindow({ limit, window: periodMs }),
      }),
    ).toThrow(/debt/);
    expect(() => tokenLimiter({ limit: '1000/min', requests: Limit.concurrent(2) })).toThrow(
      /"requests"/,
    );
    expect(() =>
      tokenLimiter({ limit: '1000/min', price: { m: { input: 1.5, output: 2 } } }),
    ).toThrow(/"price"/);
  });
});

describe('a TokenCharge', () => {
  it('settles once: a second settle, or one after cancel, does nothing; settle(undefined) keeps the upfront', async () => {
    const limiter = tokenLimiter({ limit: '1000/min', clock: () => T0 });
    const a = await limiter.charge(body(), { key: 'k' });
    expect(await a.settle(undefined)).toEqual([]);
    expect(await a.settle({ prompt_tokens: 1, completion_tokens: 1 })).toEqual([]);
    const b = await limiter.charge(body(), { key: 'k' });
    expect(b.decisions[0]!.remaining).toBe(1000 - 2 * a.upfront);
    await b.cancel();
    expect(await b.settle({ prompt_tokens: 1, completion_tokens: 1 })).toEqual([]);
    const c = await limiter.charge(body(0), { key: 'k' });
    expect(c.decisions[0]!.remaining).toBe(1000 - a.upfront - c.upfront);
  });

  it('a denial charges nothing, says how long to wait, and its settle and cancel do nothing', async () => {
    const limiter = tokenLimiter({ limit: '100/min', clock: () => T0 });
    const a = await limiter.charge(body(90), { key: 'k' });
    const denied = await limiter.charge(body(90), { key: 'k' });
    expect(denied.allowed).toBe(false);
    expect(denied.upfront).toBe(0);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    await denied.settle({ prompt_tokens: 1000, completion_tokens: 0 });
    await denied.cancel();
    await a.cancel();
    expect((await limiter.charge(body(90), { key: 'k' })).decisions[0]!.remaining).toBe(
      100 - a.upfront,
    );
  });

  it('costs exactly one store call to charge and one to settle', async () => {
    const { store, calls } = countingStore();
    const limiter = tokenLimiter({ limit: '1000/min', store, clock: () => T0 });
    const charge = await limiter.charge(body(), { key: 'k' });
    const decisions = (calls.consume ?? 0) + (calls.consumeAll ?? 0);
    expect(decisions).toBe(1);
    await charge.settle({ prompt_tokens: 5, completion_tokens: 5 });
    expect((calls.consume ?? 0) + (calls.consumeAll ?? 0)).toBe(1);
    expect(calls.refund).toBe(1);
  });

  it('rejects with an AbortError and gives the charge back when the signal aborts first', async () => {
    const inner = new MemoryStore();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = new Proxy(inner, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (p !== 'consume' || typeof v !== 'function')
          return typeof v === 'function' ? v.bind(t) : v;
        return async (...args: unknown[]) => {
          await gate;
          return v.apply(t, args);
        };
      },
    });
    const limiter = tokenLimiter({ limit: '1000/min', store: slow, clock: () => T0 });
    const controller = new AbortController();
    const pending = limiter.charge(body(), { key: 'k', signal: controller.signal });
    await new Promise((r) => setTimeout(r, 0)); // the charge is at the store now
    expect(inner.size).toBe(0);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await new Promise((r) => setTimeout(r, 0));
    const peek = await limiter.charge(body(0), { key: 'k' });
    expect(peek.decisions[0]!.remaining).toBe(1000 - peek.upfront);
    await expect(
      limiter.charge(body(), { key: 'k', signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('rejects a charge without a key', async () => {
    await expect(tokenLimiter({ limit: '1000/min' }).charge(body(), {} as never)).rejects.toThrow(
      TypeError,
    );
  });
});

describe('money and named limiters', () => {
  const price = { 'gpt-4o': { input: 2_500_000, cachedInput: 1_250_000, output: 10_000_000 } };

  it('charges a budget in micro-units at the model price, settled to the real cost rounded up', async () => {
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perDay(1_000_000),
      price,
      clock: () => T0,
    });
    const charge = await limiter.charge(body(1000), { key: 'team' });
    // 1000 output tokens at 10 per million micro-units: 10,000 micro-units, plus the input.
    expect(charge.decisions[1]!.remaining).toBeLessThan(1_000_000 - 10_000);
    const after = await charge.settle({
      prompt_tokens: 1000,
      completion_tokens: 333,
      prompt_tokens_details: { cached_tokens: 400 },
    });
    const cost = Math.ceil((600 * 2_500_000 + 400 * 1_250_000 + 333 * 10_000_000) / 1e6);
    expect(after[1]!.remaining).toBe(1_000_000 - cost);
    await expect(limiter.charge({ ...body(), model: 'unpriced' }, { key: 'team' })).rejects.toThrow(
      /price/,
    );
  });

  it('a monthly calendar budget is an ordinary limit', async () => {
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perCalendarMonth(50_000),
      price,
      clock: () => T0,
    });
    const first = await limiter.charge(body(4000), { key: 'team' });
    await first.settle({ prompt_tokens: 10, completion_tokens: 4000 });
    const second = await limiter.charge(body(4000), { key: 'team' });
    await second.settle({ prompt_tokens: 10, completion_tokens: 4000 });
    const third = await limiter.charge(body(4000), { key: 'team' });
    expect(third.allowed).toBe(false); // 80,050 of 50,000 micro-units spent: wait for next month
    expect(third.retryAfterMs).toBeGreaterThan(24 * 3600_000);
  });

  it("a named limiter's resolver gets the call's key, body and model", async () => {
    const throttles = new ThrottleRegistry();
    const seen: unknown[] = [];
    throttles.define('tpm', (view) => {
      const v = view as unknown as { key: string; model: string; body: { max_tokens: number } };
      seen.push([v.key, v.model, v.body.max_tokens]);
      return Limit.perMinute(v.model === 'gpt-4o' ? 500 : 50);
    });
    const limiter = tokenLimiter({ limit: 'throttle:tpm', throttles, clock: () => T0 });
    const big = await limiter.charge(body(100), { key: 'a' });
    const small = await limiter.charge({ ...body(100), model: 'mini' }, { key: 'b' });
    expect(seen).toEqual([
      ['a', 'gpt-4o', 100],
      ['b', 'mini', 100],
    ]);
    expect([big.decisions[0]!.limit, small.upfront]).toEqual([500, 50]);
  });
});
