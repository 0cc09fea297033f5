import { closestName } from '../../src/common/closest-name.js';
import { unknownOptionHint } from '../../src/common/known-options.js';
import { HttpLimiter, misusedFactory, splitHttpOptions } from '../../src/http/index.js';
import {
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  tokenBucket,
} from '../../src/index.js';

// Every options object is checked for unknown names: a typo, or another rate limiter's name
// for an option, is a SluiceConfigError naming it and saying what to write instead.

/** The SluiceConfigError `build` throws. */
function configError(build: () => unknown): SluiceConfigError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(SluiceConfigError);
    return error as SluiceConfigError;
  }
  throw new Error('expected a SluiceConfigError');
}

const algorithm = gcra({ rate: 10, period: '1s' });
const failingStore = { consume: () => Promise.reject(new Error('down')), reset: () => undefined };

describe('an unknown option name, per constructor', () => {
  it.each<[string, string, () => unknown, string]>([
    ['gcra()', 'perod', () => gcra({ rate: 1, period: '1s', perod: 1 } as never), '"period"'],
    [
      'leakyBucket()',
      'leak',
      () => leakyBucket({ capacity: 1, leakRate: 1, leak: 1 } as never),
      'the options are',
    ],
    [
      'tokenBucket()',
      'refilRate',
      () => tokenBucket({ capacity: 1, refillRate: 1, refilRate: 1 } as never),
      '"refillRate"',
    ],
    [
      'fixedWindow()',
      'max',
      () => fixedWindow({ limit: 1, window: '1s', max: 5 } as never),
      'Limit.perMinute(100)',
    ],
    [
      'slidingWindow()',
      'windowMs',
      () => slidingWindow({ limit: 1, window: 1, windowMs: 1 } as never),
      '"window"',
    ],
    [
      'slidingLog()',
      'limt',
      () => slidingLog({ limit: 1, window: 1, limt: 1 } as never),
      '"limit"',
    ],
    [
      'new MemoryStore()',
      'max',
      () => new MemoryStore({ max: 10 } as never),
      'Limit.perMinute(100)',
    ],
    ['new MemoryStore()', 'maxkeys', () => new MemoryStore({ maxkeys: 10 } as never), '"maxKeys"'],
    [
      'new RateLimiter()',
      'keyPrefix',
      () => new RateLimiter({ algorithm, keyPrefix: 'a' } as never),
      "prefix: 'my-app'",
    ],
    [
      'new RateLimiter()',
      'onStoreErorr',
      () => new RateLimiter({ algorithm, onStoreErorr: 'deny' } as never),
      '"onStoreError"',
    ],
    [
      'the breaker option',
      'cooldown',
      () => new RateLimiter({ algorithm, store: failingStore, breaker: { cooldown: 5 } } as never),
      '"cooldownMs"',
    ],
    [
      'new HttpLimiter()',
      'windowMs',
      () => new HttpLimiter({ windowMs: 60_000 } as never),
      "'throttle:100,15'",
    ],
    [
      'new HttpLimiter()',
      'keyGenerator',
      () => new HttpLimiter({ keyGenerator: () => 'k' } as never),
      'key: (req) => string',
    ],
    [
      'new HttpLimiter()',
      'timeWindow',
      () => new HttpLimiter({ timeWindow: 1000 } as never),
      "limit: '100/min'",
    ],
    [
      'new HttpLimiter()',
      'limti',
      () => new HttpLimiter({ limti: '1/s' } as never),
      'did you mean "limit"?',
    ],
  ])('%s: %s', (where, name, build, hint) => {
    const error = configError(build);
    expect(error.option).toBe(name);
    expect(error.message).toContain(`unknown option "${name}" in ${where}`);
    expect(error.message).toContain(hint);
  });

  it('several unknown names are reported in one message, each with its hint', () => {
    const error = configError(
      () => new HttpLimiter({ windowMs: 1000, max: 5, limti: '1/s' } as never),
    );
    expect(error.option).toBe('windowMs');
    expect(error.message).toMatch(/^sluice: unknown options in new HttpLimiter\(\): "windowMs" \(/);
    expect(error.message).toContain('"max" (sluice has no "max"');
    expect(error.message).toContain('"limti" (did you mean "limit"?)');
  });

  it('an option set to undefined is still checked', () => {
    expect(configError(() => new HttpLimiter({ max: undefined } as never)).option).toBe('max');
  });

  it('known options pass', () => {
    expect(() => new MemoryStore({ maxKeys: 5 })).not.toThrow();
    expect(() => new HttpLimiter({ limit: '5/s', headers: false, breaker: {} })).not.toThrow();
  });
});

describe('splitHttpOptions (what adapters use)', () => {
  it("splits an adapter's own options from the core's", () => {
    const handler = () => undefined;
    const [own, core] = splitHttpOptions({ limit: '5/s', handler }, ['handler'], 'rateLimit()');
    expect(own).toEqual({ handler });
    expect(core).toEqual({ limit: '5/s' });
  });

  it("suggests an adapter's own option for a near miss", () => {
    const error = configError(() =>
      splitHttpOptions({ handlr: 1 }, ['handler'] as never, 'rateLimit()'),
    );
    expect(error.message).toBe(
      'sluice: unknown option "handlr" in rateLimit(): did you mean "handler"?',
    );
  });

  it('a request or a Koa context where the options belong: the factory was mounted itself', () => {
    const req = { headers: {}, method: 'GET', _events: {}, socket: {} };
    const error = configError(() => splitHttpOptions(req as never, [], 'rateLimit()'));
    expect(error.option).toBe('options');
    expect(error.message).toContain('rateLimit was mounted itself');
    expect(error.message).toContain('call rateLimit(options)');
    expect(error.message).not.toContain('_events');
    const ctx = { req: {}, res: {}, app: {}, state: {} };
    expect(configError(() => splitHttpOptions(ctx as never, [], 'rateLimit()')).message).toContain(
      'call rateLimit(options)',
    );
    expect(misusedFactory(req, 'throttle()')?.message).toContain('call throttle(limit, options)');
    expect(misusedFactory({ limit: '1/s' }, 'rateLimit()')).toBeUndefined();
  });

  it('a function where the options belong says to call the factory', () => {
    const error = configError(() => splitHttpOptions((() => 1) as never, [], 'rateLimit()'));
    expect(error.message).toContain('was given a function where its options belong');
    expect(error.message).toContain('call rateLimit(options)');
  });

  it('rejects what is not an object', () => {
    expect(configError(() => splitHttpOptions(5 as never, [], 'rateLimit()')).option).toBe(
      'options',
    );
  });
});

describe('the hint', () => {
  it('maps peer names and near misses', () => {
    expect(closestName('Limit', ['limit'])).toBe('limit');
    expect(closestName('prefx', ['prefix'])).toBe('prefix');
    expect(closestName('zzz', ['limit', 'key'])).toBeUndefined();
    expect(unknownOptionHint('max', ['limit'])).toContain('sluice has no "max"');
    expect(unknownOptionHint('qqqqq', ['limit', 'key'])).toBe('the options are limit, key');
  });
});
