// `RateLimitedError`: what a front door that throws (tRPC) throws when a limit refused the
// work; seconds rounded up as `Retry-After` is, "never" (-1) kept apart from any wait.
import { type Decision, RateLimitedError, SluiceConfigError } from '@sluice/core';

const denied = (retryAfterMs: number): Decision => ({
  allowed: false,
  limit: 10,
  remaining: 0,
  retryAfterMs,
  resetAfterMs: Math.max(0, retryAfterMs),
  cost: 1,
});

it.each([
  [1, 1],
  [999, 1],
  [1000, 1],
  [1001, 2],
  [59_500, 60],
])('a wait of %d ms is retryAfter %d s (rounded up, at least 1)', (ms, seconds) => {
  const error = new RateLimitedError({ decision: denied(ms) });
  expect(error.retryAfterMs).toBe(ms);
  expect(error.retryAfter).toBe(seconds);
  expect(error.message).toContain(`retry in ${seconds} seconds`);
});

it('"never" (-1) has no retryAfter and a message that says waiting will not help', () => {
  const error = new RateLimitedError({ decision: denied(-1) });
  expect(error.retryAfterMs).toBe(-1);
  expect(error.retryAfter).toBeUndefined();
  expect(error.message).toMatch(/waiting will not admit it/);
  expect(error.message).not.toMatch(/-1/);
});

it('carries the decision, every decision when given, and its own name and brand', () => {
  const refused = denied(2000);
  const admitted: Decision = { ...refused, allowed: true, remaining: 4, retryAfterMs: 0 };
  const error = new RateLimitedError({ decision: refused, decisions: [admitted, refused] });
  expect(error.decision).toBe(refused);
  expect(error.decisions).toEqual([admitted, refused]);
  expect(new RateLimitedError({ decision: refused }).decisions).toEqual([refused]);
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('RateLimitedError');
  expect(error).not.toBeInstanceOf(SluiceConfigError);
  // An instance of the other build (ESM / CommonJS) carries the same brand.
  expect({ [Symbol.for('sluice.v0.RateLimitedError')]: true }).toBeInstanceOf(RateLimitedError);
});
