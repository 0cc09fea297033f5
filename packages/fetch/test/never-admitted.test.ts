import { Limit, LimitOperations, MemoryStore } from '@sluice/core';
import { limitFetch } from '../src/index.js';

// A request waiting will never admit gets no Retry-After (RFC 9110 has no value for
// "never"), never a negative one: a cost above the (overridden) limit, an operator's deny.
describe('@sluice/fetch: a request waiting will never admit', () => {
  it.each([
    [
      'a cost above the overridden limit',
      429,
      (ops: LimitOperations) => ops.override({ key: 't' }, '1/min', { for: '1h' }),
    ],
    ['an operator deny', 403, (ops: LimitOperations) => ops.deny({ key: 't' })],
  ])('%s: %i without Retry-After', async (_name, status, operate) => {
    const store = new MemoryStore();
    await operate(new LimitOperations({ store }));
    const handler = limitFetch(() => new Response('ok'), {
      limit: Limit.perMinute(10).cost(2),
      key: () => 't',
      ip: () => '203.0.113.1',
      store,
    });
    const res = await handler(new Request('http://x/'));
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.text()).not.toMatch(/-1/);
  });
});
