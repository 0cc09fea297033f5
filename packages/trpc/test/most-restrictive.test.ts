// On tRPC as on HTTP (engine/restrictive.ts): a call that can never pass (cost 5 under a
// 3/min limit) beside a spent 10/min limit is refused with "never", not "retry in 30 s".
import { Limit, RateLimitedError, ThrottleRegistry } from '@sluice/core';
import { sluiceTrpc } from '@sluice/trpc';
import type { TRPCError } from '@trpc/server';

it('the cause reports never (-1, no retryAfter), not the spent limit’s wait', async () => {
  const state = { spending: true };
  const throttles = new ThrottleRegistry().define('api', () =>
    state.spending
      ? Limit.perMinute(10).named('ten')
      : [Limit.perMinute(10).named('ten').cost(5), Limit.perMinute(3).named('three').cost(5)],
  );
  const mw = sluiceTrpc('throttle:api', {
    throttles,
    key: () => 'k',
    clock: () => 1_700_000_000_000,
  });
  const call = () =>
    mw({ ctx: {}, path: 'p', type: 'query', next: async () => 'ok' }).catch((e: unknown) => e);
  for (let i = 0; i < 10; i++) expect(await call()).toBe('ok');
  state.spending = false;
  const cause = ((await call()) as TRPCError).cause as RateLimitedError;
  expect(cause).toBeInstanceOf(RateLimitedError);
  expect(cause.decisions.map((d) => d.retryAfterMs)).toEqual([30_000, -1]);
  expect(cause.retryAfterMs).toBe(-1);
  expect(cause.retryAfter).toBeUndefined();
});
