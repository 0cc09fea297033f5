import {
  fixedWindow,
  Limit,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
} from '../../src/index.js';
import { type Algorithm, GcraAlgorithm, limitAlgorithm } from '../../src/store-api.js';

describe('Limit quotas', () => {
  it.each([
    ['perSecond(10)', () => Limit.perSecond(10), 10, 1_000],
    ['perSecond(10, 5)', () => Limit.perSecond(10, 5), 10, 5_000],
    ['perMinute(60)', () => Limit.perMinute(60), 60, 60_000],
    ['perMinute(60, 2)', () => Limit.perMinute(60, 2), 60, 120_000],
    [
      'perMinutes(15, 100) (Laravel order: minutes first)',
      () => Limit.perMinutes(15, 100),
      100,
      900_000,
    ],
    ['perHour(1000)', () => Limit.perHour(1000), 1000, 3_600_000],
    ['perHour(5, 3)', () => Limit.perHour(5, 3), 5, 10_800_000],
    ['perDay(5000)', () => Limit.perDay(5000), 5000, 86_400_000],
    ['perDay(7, 2)', () => Limit.perDay(7, 2), 7, 172_800_000],
    ['per(3, "500ms")', () => Limit.per(3, '500ms'), 3, 500],
    ['per(3, 2500)', () => Limit.per(3, 2500), 3, 2500],
  ])('%s', (_label, make, maxAttempts, periodMs) => {
    const limit = make();
    expect(limit.maxAttempts).toBe(maxAttempts);
    expect(limit.periodMs).toBe(periodMs);
    expect(limit.unlimited).toBe(false);
    expect(limit.subject).toBeUndefined();
    expect(limit.name).toBeUndefined();
    expect(limit.requestCost).toBe(1);
  });

  it('none() is unlimited and needs no algorithm', () => {
    const none = Limit.none();
    expect(none.unlimited).toBe(true);
    expect(none.maxAttempts).toBe(Number.POSITIVE_INFINITY);
    expect(limitAlgorithm(none)).toBeUndefined();
    expect(limitAlgorithm(none.by('x'))).toBeUndefined();
  });
});

describe('Limit is immutable', () => {
  it('by() returns a new limit and leaves the receiver unchanged', () => {
    const base = Limit.perMinute(60);
    const forUser = base.by('user-1');
    expect(forUser).not.toBe(base);
    expect(forUser.subject).toBe('user-1');
    expect(base.subject).toBeUndefined();
    expect(forUser.maxAttempts).toBe(60);
    expect(forUser.periodMs).toBe(60_000);
    expect(base.by(42).subject).toBe('42');
    expect(forUser.by('user-2').subject).toBe('user-2');
    expect(forUser.subject).toBe('user-1');
  });

  it('cost() returns a new limit and leaves the receiver unchanged', () => {
    const base = Limit.perHour(100).by('k');
    const heavy = base.cost(5);
    expect(heavy.requestCost).toBe(5);
    expect(base.requestCost).toBe(1);
    expect(heavy.subject).toBe('k');
    expect(base.cost(0).requestCost).toBe(0);
  });

  it('named() returns a new limit and keeps key and cost', () => {
    const base = Limit.perMinute(60).by('ip').cost(2);
    const named = base.named('uploads');
    expect(named.name).toBe('uploads');
    expect(base.name).toBeUndefined();
    expect(named.subject).toBe('ip');
    expect(named.requestCost).toBe(2);
  });

  it('is frozen', () => {
    const limit = Limit.perMinute(60);
    expect(Object.isFrozen(limit)).toBe(true);
    expect(() => {
      (limit as { maxAttempts: number }).maxAttempts = 1;
    }).toThrow(TypeError);
    expect(limit.maxAttempts).toBe(60);
  });

  it('none() stays unlimited through the builders', () => {
    const none = Limit.none().by('x').cost(3);
    expect(none.unlimited).toBe(true);
    expect(Limit.none().subject).toBeUndefined();
  });
});

describe('Limit validation', () => {
  it.each([
    ['perSecond(0)', 'maxAttempts', () => Limit.perSecond(0)],
    ['perMinute(1.5)', 'maxAttempts', () => Limit.perMinute(1.5)],
    ['perMinute(60, 0)', 'decayMinutes', () => Limit.perMinute(60, 0)],
    ['perMinutes(0, 10)', 'decayMinutes', () => Limit.perMinutes(0, 10)],
    ['perMinutes(10, -1)', 'maxAttempts', () => Limit.perMinutes(10, -1)],
    ['perHour(NaN)', 'maxAttempts', () => Limit.perHour(Number.NaN)],
    ['perDay(Infinity)', 'maxAttempts', () => Limit.perDay(Number.POSITIVE_INFINITY)],
    ['perSecond(1, 0.5)', 'decaySeconds', () => Limit.perSecond(1, 0.5)],
    ['per(1, "0.5ms")', 'period', () => Limit.per(1, '0.5ms')],
    ['per(1, "soon")', 'period', () => Limit.per(1, 'soon')],
    ['by(NaN)', 'subject', () => Limit.perMinute(1).by(Number.NaN)],
    ['by(undefined)', 'subject', () => Limit.perMinute(1).by(undefined as unknown as string)],
    ['cost(1.5)', 'cost', () => Limit.perMinute(1).cost(1.5)],
    ['named("")', 'name', () => Limit.perMinute(1).named('')],
    // A quote would forge policies in RateLimit-Policy ("a";q=1000;w=1).
    ["named('a\";q=1000;w=1')", 'name', () => Limit.perMinute(1).named('a";q=1000;w=1')],
    ['named("a\\\\b")', 'name', () => Limit.perMinute(1).named('a\\b')],
    ['named("a b")', 'name', () => Limit.perMinute(1).named('a b')],
    ['named("a;b")', 'name', () => Limit.perMinute(1).named('a;b')],
    // Outside Latin-1, or a control character: no header could carry it.
    ['named("λ")', 'name', () => Limit.perMinute(1).named('λ')],
    ['named("é")', 'name', () => Limit.perMinute(1).named('é')],
    ['named("a\\nb")', 'name', () => Limit.perMinute(1).named('a\nb')],
    ['named(129 characters)', 'name', () => Limit.perMinute(1).named('a'.repeat(129))],
  ])('%s throws SluiceConfigError naming %s', (_label, option, make) => {
    expect(make).toThrow(SluiceConfigError);
    expect(make).toThrow(`"${option}"`);
  });
});

describe('limit names', () => {
  it.each(['api', 'login.5-per-60000ms', 'uploads_v2', '5-per-60000ms', 'a'.repeat(128)])(
    'accepts %s',
    (name) => {
      expect(Limit.perMinute(1).named(name).name).toBe(name);
    },
  );

  it('names the option and describes the value by kind', () => {
    expect(() => Limit.perMinute(1).named('a"b')).toThrow(
      'sluice: invalid option "name": expected a limit name: 1 to 128 ASCII letters',
    );
  });
});

describe('limitAlgorithm', () => {
  it('defaults to GCRA with burst = rate = the quota', async () => {
    const algorithm = limitAlgorithm(Limit.perMinute(3)) as GcraAlgorithm;
    expect(algorithm).toBeInstanceOf(GcraAlgorithm);
    expect(algorithm.limit).toBe(3);
    expect(algorithm.emissionIntervalMs).toBe(20_000);

    let now = 1_700_000_000_000;
    const limiter = new RateLimiter({ algorithm, store: new MemoryStore(), clock: () => now });
    for (let i = 0; i < 3; i++) expect((await limiter.consume('k')).allowed).toBe(true);
    const denied = await limiter.consume('k');
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBe(20_000);
    now += 20_000;
    expect((await limiter.consume('k')).allowed).toBe(true);
  });

  it('passes { limit, periodMs } to a factory and returns its algorithm', () => {
    const seen: unknown[] = [];
    const algorithm = limitAlgorithm(Limit.perMinutes(15, 100), (quota) => {
      seen.push(quota);
      return fixedWindow({ limit: quota.limit, window: quota.periodMs });
    });
    expect(seen).toEqual([{ limit: 100, periodMs: 900_000 }]);
    expect(algorithm?.kind).toBe('fixed-window');
    expect(algorithm?.limit).toBe(100);
  });

  it('does not call the factory for Limit.none()', () => {
    const factory = jest.fn((): Algorithm => fixedWindow({ limit: 1, window: 1 }));
    expect(limitAlgorithm(Limit.none(), factory)).toBeUndefined();
    expect(factory).not.toHaveBeenCalled();
  });

  it('rejects a non-function factory, a factory returning junk, and a non-Limit', () => {
    expect(() => limitAlgorithm(Limit.perMinute(1), 'gcra' as never)).toThrow(SluiceConfigError);
    expect(() => limitAlgorithm(Limit.perMinute(1), () => ({}) as Algorithm)).toThrow(
      /"algorithm"/,
    );
    expect(() => limitAlgorithm({ maxAttempts: 1, periodMs: 1000 } as unknown as Limit)).toThrow(
      /"limit"/,
    );
  });
});
