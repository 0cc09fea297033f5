import { Limit } from '@sluice/core';
import { NEVER_ADMITTED, operatedStore } from '@sluice/test-kit';
import { limitFetch } from '../src/index.js';

// A request waiting will never admit gets no Retry-After (RFC 9110 has no value for
// "never"), never a negative one: a cost above the (overridden) limit, an operator's deny.
describe('@sluice/fetch: a request waiting will never admit', () => {
  it.each(NEVER_ADMITTED)('%s: %i without Retry-After', async (_name, status, operate) => {
    const store = await operatedStore(operate);
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
