// Operator entries (LimitOperations) on token keys, as on any key: a deny refuses for good
// (retryAfterMs -1, a 429 without Retry-After), a ban until it ends, an allow passes uncharged.

import { limitTokens, tokenLimiter } from '@sluice/ai';
import { LimitOperations, MemoryStore } from '@sluice/core';

const T0 = 1_700_000_000_000;
const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50 };

describe('operator entries on token keys', () => {
  it('deny, ban and allow apply to a charge by its key', async () => {
    const store = new MemoryStore();
    const ops = new LimitOperations({ store });
    // The ban ends 10 minutes from the wall clock: the limiter runs on it too.
    const limiter = tokenLimiter({ limit: '1000/min', store });
    await ops.deny({ key: 'evil' });
    await ops.ban({ key: 'noisy' }, { for: '10m' });
    await ops.allow({ key: 'vip' });
    const denied = await limiter.charge(body, { key: 'evil' });
    expect([denied.allowed, denied.retryAfterMs, denied.upfront]).toEqual([false, -1, 0]);
    const banned = await limiter.charge(body, { key: 'noisy' });
    expect(banned.allowed).toBe(false);
    expect(banned.retryAfterMs).toBeGreaterThan(0);
    expect(banned.retryAfterMs).toBeLessThanOrEqual(600_000);
    const vip = await limiter.charge({ ...body, max_tokens: 5000 }, { key: 'vip' });
    expect(vip.allowed).toBe(true);
    await vip.settle({ prompt_tokens: 10_000, completion_tokens: 10_000 }); // uncharged: nothing to settle
    expect((await limiter.charge(body, { key: 'plain' })).allowed).toBe(true);
  });

  it("a gateway answers an operator's deny 429 without Retry-After", async () => {
    const store = new MemoryStore();
    await new LimitOperations({ store }).deny({ key: 'evil' });
    const gw = limitTokens(() => Response.json({ usage: {} }), {
      limit: '1000/min',
      store,
      key: () => 'evil',
      clock: () => T0,
    });
    const res = await gw(
      new Request('http://gw/v1/chat/completions', { method: 'POST', body: JSON.stringify(body) }),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /cannot be admitted/,
    );
  });
});
