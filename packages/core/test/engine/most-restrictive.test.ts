// "Most restrictive", one rule on every front door (engine/restrictive.ts): a request that
// can never pass (cost 5 under a 3/min limit) beside a spent 10/min limit reports "never"
// (-1), not the spent limit's "retry in 30 s", on HTTP and on a protocol limit alike.
import { EPOCH } from '@sluice/test-kit';
import { moreRestrictive, mostRestrictive } from '../../src/engine/restrictive.js';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import {
  type Decision,
  Limit,
  MemoryStore,
  type RequestView,
  ThrottleRegistry,
} from '../../src/index.js';
import { ProtocolLimiter } from '../../src/protocol-api.js';

/** A new request each call (the HTTP ledger charges one request once, by its `raw`). */
const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /a',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});
const clock = () => EPOCH;

/** `throttle:api`: first the 10/min limit alone (to spend it), then both at cost 5. */
function registry() {
  const state = { spending: true };
  const throttles = new ThrottleRegistry().define('api', () =>
    state.spending
      ? Limit.perMinute(10).named('ten')
      : [Limit.perMinute(10).named('ten').cost(5), Limit.perMinute(3).named('three').cost(5)],
  );
  return { throttles, state };
}

it('HTTP: the spent limit says 30 s, the 3/min one "never": the verdict reports never', async () => {
  const { throttles, state } = registry();
  const limiter = new HttpLimiter({
    store: new MemoryStore(),
    clock,
    limit: 'throttle:api',
    throttles,
  });
  for (let i = 0; i < 10; i++)
    expect(((await limiter.check(view())) as HttpVerdict).allowed).toBe(true);
  state.spending = false;
  const verdict = (await limiter.check(view())) as HttpVerdict;
  expect(verdict.allowed).toBe(false);
  expect(verdict.decisions.map((d) => d.retryAfterMs)).toEqual([30_000, -1]);
  expect(verdict.decision.retryAfterMs).toBe(-1);
  expect(verdict.headers.find(([name]) => name === 'Retry-After')).toBeUndefined();
});

it('a protocol limit (GraphQL, ws, tRPC): the same two limits report never too', async () => {
  const { throttles, state } = registry();
  const limiter = new ProtocolLimiter({
    store: new MemoryStore(),
    clock,
    limit: 'throttle:api',
    throttles,
    channel: 'ws',
  });
  for (let i = 0; i < 10; i++) expect((await limiter.check(view())).allowed).toBe(true);
  state.spending = false;
  const verdict = await limiter.check(view());
  expect(verdict.allowed).toBe(false);
  expect(verdict.decisions.map((d) => d.retryAfterMs)).toEqual([30_000, -1]);
  expect(verdict.decision.retryAfterMs).toBe(-1);
  expect(verdict.retryAfterSeconds).toBe(-1);
  expect(verdict.retryAfterHeader).toBeUndefined();
});

describe('moreRestrictive', () => {
  const d = (allowed: boolean, retryAfterMs: number, remaining = 0): Decision => ({
    allowed,
    limit: 10,
    remaining,
    retryAfterMs,
    resetAfterMs: 0,
    cost: 1,
  });
  it('a denial beats an admission; "never" beats any wait; a longer wait a shorter one', () => {
    expect(moreRestrictive(d(false, 1), d(true, 0, 0))).toBe(true);
    expect(moreRestrictive(d(true, 0, 0), d(false, 1))).toBe(false);
    expect(moreRestrictive(d(false, -1), d(false, 3_600_000))).toBe(true);
    expect(moreRestrictive(d(false, 3_600_000), d(false, -1))).toBe(false);
    expect(moreRestrictive(d(false, 2000), d(false, 1000))).toBe(true);
  });
  it('of admissions the fewer remaining; equals keep the earlier one', () => {
    expect(moreRestrictive(d(true, 0, 1), d(true, 0, 2))).toBe(true);
    expect(mostRestrictive([d(false, 500), d(false, 500)])).toBe(0);
    expect(mostRestrictive([d(true, 0, 4), d(false, 60_000), d(false, -1), d(true, 0, 0)])).toBe(2);
  });
});
