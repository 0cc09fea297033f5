import { Limit, SluiceConfigError } from '../../src/index.js';
import { parseThrottle, type ThrottleSpec } from '../../src/limits/throttle-string.js';

function onlyLimit(spec: ThrottleSpec): Limit {
  if (spec.kind !== 'limits') throw new Error(`expected limits, got ${spec.kind}`);
  expect(spec.limits).toHaveLength(1);
  expect(spec.limits[0]).toBeInstanceOf(Limit);
  return spec.limits[0]!;
}

describe('parseThrottle: Laravel forms', () => {
  it.each([
    ['throttle:60,1', 60, 60_000],
    ['throttle:10,5', 10, 300_000],
    ['throttle:1,1440', 1, 86_400_000],
    ['throttle:60', 60, 60_000],
    ['throttle:007,2', 7, 120_000],
  ])('%s -> %d per %d ms', (text, maxAttempts, periodMs) => {
    const limit = onlyLimit(parseThrottle(text));
    expect(limit.maxAttempts).toBe(maxAttempts);
    expect(limit.periodMs).toBe(periodMs);
    expect(limit.name).toBeUndefined();
    expect(limit.subject).toBeUndefined();
    expect(limit.requestCost).toBe(1);
  });

  it('takes the third part as the key prefix', () => {
    const limit = onlyLimit(parseThrottle('throttle:60,1,uploads'));
    expect(limit.maxAttempts).toBe(60);
    expect(limit.periodMs).toBe(60_000);
    expect(limit.name).toBe('uploads');
    expect(onlyLimit(parseThrottle('throttle:5,10,api.v2-upload_x')).name).toBe('api.v2-upload_x');
  });

  it.each(['api', 'login', 'uploads-v2', 'api.v1', 'A_b'])(
    'throttle:%s is a named limiter',
    (name) => {
      expect(parseThrottle(`throttle:${name}`)).toEqual({ kind: 'named', name });
    },
  );

  it('returns a fresh spec each time (no shared mutable result)', () => {
    const a = parseThrottle('throttle:60,1');
    const b = parseThrottle('throttle:60,1');
    expect(a).not.toBe(b);
  });
});

describe('parseThrottle: shorthand', () => {
  it.each([
    ['60/min', 60, 60_000],
    ['10/s', 10, 1_000],
    ['1000/hour', 1000, 3_600_000],
    ['5000/day', 5000, 86_400_000],
    ['1/sec', 1, 1_000],
    ['2/secs', 2, 1_000],
    ['3/second', 3, 1_000],
    ['4/seconds', 4, 1_000],
    ['5/m', 5, 60_000],
    ['6/mins', 6, 60_000],
    ['7/minute', 7, 60_000],
    ['8/minutes', 8, 60_000],
    ['9/h', 9, 3_600_000],
    ['10/hr', 10, 3_600_000],
    ['11/hrs', 11, 3_600_000],
    ['12/hours', 12, 3_600_000],
    ['13/d', 13, 86_400_000],
    ['14/days', 14, 86_400_000],
    ['100/15m', 100, 900_000],
    ['100/15 minutes', 100, 900_000],
    ['30/10s', 30, 10_000],
    ['5/2h', 5, 7_200_000],
    ['1/7d', 1, 604_800_000],
    // One duration grammar with maxWait / parseDuration: ms, weeks, years, decimals, any case.
    ['3/500ms', 3, 500],
    ['3/500 milliseconds', 3, 500],
    ['60/ms', 60, 1],
    ['100/week', 100, 604_800_000],
    ['100/2 weeks', 100, 1_209_600_000],
    ['100/w', 100, 604_800_000],
    ['1/y', 1, 31_557_600_000],
    ['60/MIN', 60, 60_000],
    ['60/1.5h', 60, 5_400_000],
    ['5/5 seconds', 5, 5_000],
  ])('%s -> %d per %d ms', (text, maxAttempts, periodMs) => {
    const limit = onlyLimit(parseThrottle(text));
    expect(limit.maxAttempts).toBe(maxAttempts);
    expect(limit.periodMs).toBe(periodMs);
    expect(limit.name).toBeUndefined();
  });
});

describe('parseThrottle: malformed input', () => {
  it.each([
    '',
    'throttle:',
    'throttle',
    'throttle:0,1',
    'throttle:60,0',
    'throttle:60,x',
    'throttle:60,1,',
    'throttle:60,,uploads',
    'throttle:-1,1',
    'throttle:60,-1',
    'throttle:1.5,1',
    'throttle:60,1.5',
    'throttle:60,1,uploads,extra',
    'throttle:60,1,up loads',
    'throttle:60,1,1abc',
    'throttle:api,1',
    'throttle: 60,1',
    'throttle:60, 1',
    ' throttle:60,1',
    'throttle:60,1 ',
    'throttle:60,1;',
    'Throttle:60,1',
    'throttle:1e3,1',
    'throttle:99999999999999999999,1',
    'throttle:1,99999999999999999',
    'throttle:1,1000000000000',
    '1/1000000000000d',
    'api',
    '60/fortnight',
    '60/min ',
    '60 /min',
    '60/ min',
    '60/',
    '/min',
    '0/min',
    '-5/min',
    '1.5/min',
    '60/0m',
    '60/1',
    '60/500',
    '60/0.5ms',
    '60/-1m',
    '60/min/extra',
    '60/minx',
    '60per min',
    '60',
    'throttle:60,1,a"b',
  ])('%j throws SluiceConfigError naming "limit" and the text', (text) => {
    let error: unknown;
    try {
      parseThrottle(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    const configError = error as SluiceConfigError;
    expect(configError.option).toBe('limit');
    expect(configError.value).toBe(text);
    expect(configError.message).toContain('"limit"');
    expect(configError.message).toContain(JSON.stringify(text));
  });

  it.each([`throttle:60,1,${'a'.repeat(65)}`, `throttle:${'a'.repeat(65)}`])(
    'a name of more than 64 characters throws SluiceConfigError naming "limit"',
    (text) => {
      expect(() => parseThrottle(text)).toThrow(SluiceConfigError);
      expect(() => parseThrottle(text)).toThrow('"limit"');
    },
  );

  it.each([undefined, null, 60, { limit: 60 }])(
    'non-string %p throws SluiceConfigError',
    (value) => {
      expect(() => parseThrottle(value as unknown as string)).toThrow(SluiceConfigError);
    },
  );
});

describe('parseThrottle: a refused string offers the forms that work', () => {
  it.each(['3/500 msx', '60/1', '100/fortnight'])(
    '%j: lists the durations and Limit.per',
    (text) => {
      expect(() => parseThrottle(text)).toThrow(
        /'3\/500ms', '100\/week'.*Limit\.per\(count, periodMs\)/,
      );
    },
  );
});
