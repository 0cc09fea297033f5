// The outcome, penalty and concurrency options are checked at construction: each bad value is a
// SluiceConfigError naming the option; good values build.
import {
  concurrency,
  gcra,
  Limit,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
} from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { parsePenalty } from '@sluice/core/store';

const named = (option: string) => expect.objectContaining({ option });

describe('new options are validated at construction', () => {
  it.each([
    [{ skipSuccessfulRequests: 'yes' }, 'skipSuccessfulRequests'],
    [{ skipFailedRequests: 1 }, 'skipFailedRequests'],
    [{ requestWasSuccessful: true }, 'requestWasSuccessful'],
  ])('HttpLimiter(%o) names %s', (options, option) => {
    expect(() => new HttpLimiter(options as never)).toThrow(SluiceConfigError);
    try {
      new HttpLimiter(options as never);
    } catch (error) {
      expect(error).toEqual(named(option));
    }
  });

  it('outcome options need an algorithm that can give back', () => {
    const noRefund = () => ({
      ...gcra({ rate: 1, period: 1000 }),
      refund: undefined,
      step: () => {
        throw new Error();
      },
      kind: 'gcra' as const,
      limit: 1,
      params: [],
      description: 'custom',
    });
    expect(
      () =>
        new HttpLimiter({
          store: new MemoryStore(),
          skipSuccessfulRequests: true,
          algorithm: noRefund,
        }),
    ).toThrow(SluiceConfigError);
  });

  it.each([
    [() => Limit.perMinute(5).blockFor(0), 'blockFor'],
    [() => Limit.perMinute(5).blockFor('soon'), 'blockFor'],
    [() => Limit.perMinute(5).blockFor('15m', { backoff: 0.5 }), 'backoff'],
    [() => Limit.perMinute(5).blockFor('15m', { backoff: Number.NaN }), 'backoff'],
    [() => Limit.perMinute(5).blockFor('15m', { maxBlock: '1m' }), 'maxBlock'],
    [() => Limit.concurrent(2).blockFor('1m'), 'blockFor'],
    [() => Limit.concurrent(0), 'maxInFlight'],
    [() => Limit.concurrent(1.5), 'maxInFlight'],
    [() => Limit.concurrent(2, { leaseMs: 0 }), 'leaseMs'],
    [() => Limit.concurrent(2, { leaseMs: 'never' }), 'leaseMs'],
    [() => concurrency({ limit: 0 }), 'limit'],
  ])('%s names %s', (build, option) => {
    expect(build).toThrow(SluiceConfigError);
    try {
      build();
    } catch (error) {
      expect(error).toEqual(named(option));
    }
  });

  it('good values build, with their documented defaults', () => {
    expect(parsePenalty('15m')).toEqual({ blockMs: 900_000, backoff: 1, maxBlockMs: 900_000 });
    expect(parsePenalty('15m', { backoff: 2 })).toEqual({
      blockMs: 900_000,
      backoff: 2,
      maxBlockMs: 86_400_000,
    });
    expect(Limit.concurrent(2).periodMs).toBe(60_000);
    expect(String(Limit.concurrent(2))).toBe('Limit(2 in flight, leases of 60000 ms, cost 1)');
  });

  it('limiter.refund checks its cost', () => {
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1, period: 1000 }) });
    expect(() => limiter.refund('k', { cost: -1 })).toThrow(TypeError);
  });
});
