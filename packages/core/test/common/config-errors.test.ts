import { HttpLimiter } from '../../src/http/index.js';
import {
  cellThrottle,
  fixedWindow,
  gcra,
  Limit,
  leakyBucket,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  slidingLog,
  slidingWindow,
  ThrottleRegistry,
  tokenBucket,
  type WindowOptions,
} from '../../src/index.js';
import { parseThrottle } from '../../src/limits/throttle-string.js';
import { resolveLimitInput } from '../../src/store-api.js';

// Bad input: every invalid value at construction is a SluiceConfigError whose
// message names the option and the value. One test per invalid input.

interface Case {
  /** The test's name. */
  label: string;
  /** The option the error must name. */
  option: string;
  /** The value the error must carry (compared with Object.is). */
  value: unknown;
  /** How the value must appear at the end of the message (`…, got <shown>`). */
  shown: string;
  build: () => unknown;
}

function expectConfigError({ option, value, shown, build }: Case): void {
  let error: unknown;
  try {
    build();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(SluiceConfigError);
  const configError = error as SluiceConfigError;
  expect(configError.option).toBe(option);
  expect(configError.value).toBe(value);
  expect(configError.message).toContain(`"${option}"`);
  expect(configError.message.endsWith(`got ${shown}`)).toBe(true);
}

const validGcra = { rate: 10, period: '1s' };
const algorithm = gcra(validGcra);

const gcraCases: Case[] = [
  { label: 'gcra rate 0', option: 'rate', value: 0, shown: 'a number (0)' },
  { label: 'gcra rate -1', option: 'rate', value: -1, shown: 'a number (-1)' },
  { label: 'gcra rate NaN', option: 'rate', value: Number.NaN, shown: 'a number (NaN)' },
  {
    label: 'gcra rate Infinity',
    option: 'rate',
    value: Number.POSITIVE_INFINITY,
    shown: 'a number (Infinity)',
  },
  { label: "gcra rate '5'", option: 'rate', value: '5', shown: 'a string ("5")' },
  { label: 'gcra period 0', option: 'period', value: 0, shown: 'a number (0)' },
  { label: "gcra period 'abc'", option: 'period', value: 'abc', shown: 'a string ("abc")' },
  { label: "gcra period ''", option: 'period', value: '', shown: 'a string ("")' },
  { label: 'gcra burst 0', option: 'burst', value: 0, shown: 'a number (0)' },
  { label: 'gcra burst 0.5', option: 'burst', value: 0.5, shown: 'a number (0.5)' },
  { label: 'gcra burst -1', option: 'burst', value: -1, shown: 'a number (-1)' },
].map((c) => ({ ...c, build: () => gcra({ ...validGcra, [c.option]: c.value } as never) }));

const cellCases: Case[] = [
  {
    label: 'cellThrottle maxBurst -1',
    option: 'maxBurst',
    value: -1,
    shown: 'a number (-1)',
    build: () => cellThrottle(-1, 10, 1),
  },
  {
    label: 'cellThrottle maxBurst 1.5',
    option: 'maxBurst',
    value: 1.5,
    shown: 'a number (1.5)',
    build: () => cellThrottle(1.5, 10, 1),
  },
  {
    label: 'cellThrottle count 0',
    option: 'count',
    value: 0,
    shown: 'a number (0)',
    build: () => cellThrottle(5, 0, 1),
  },
  {
    label: 'cellThrottle periodSeconds 0',
    option: 'periodSeconds',
    value: 0,
    shown: 'a number (0)',
    build: () => cellThrottle(5, 10, 0),
  },
  {
    label: 'cellThrottle periodSeconds NaN',
    option: 'periodSeconds',
    value: Number.NaN,
    shown: 'a number (NaN)',
    build: () => cellThrottle(5, 10, Number.NaN),
  },
];

const validLeaky = { capacity: 10, leakRate: 1 };
const leakyCases: Case[] = [
  { label: 'leakyBucket capacity 0', option: 'capacity', value: 0, shown: 'a number (0)' },
  { label: 'leakyBucket capacity 1.5', option: 'capacity', value: 1.5, shown: 'a number (1.5)' },
  { label: 'leakyBucket leakRate 0', option: 'leakRate', value: 0, shown: 'a number (0)' },
  { label: 'leakyBucket leakRate -1', option: 'leakRate', value: -1, shown: 'a number (-1)' },
].map((c) => ({ ...c, build: () => leakyBucket({ ...validLeaky, [c.option]: c.value }) }));

const validToken = { capacity: 10, refillRate: 1 };
const tokenCases: Case[] = [
  { label: 'tokenBucket capacity 0', option: 'capacity', value: 0, shown: 'a number (0)' },
  { label: 'tokenBucket refillRate 0', option: 'refillRate', value: 0, shown: 'a number (0)' },
  {
    label: "tokenBucket refillInterval 'never'",
    option: 'refillInterval',
    value: 'never',
    shown: 'a string ("never")',
  },
].map((c) => ({ ...c, build: () => tokenBucket({ ...validToken, [c.option]: c.value }) }));

const windowFactories: Array<[string, (options: WindowOptions) => unknown]> = [
  ['fixedWindow', fixedWindow],
  ['slidingWindow', slidingWindow],
  ['slidingLog', slidingLog],
];
const windowCases: Case[] = windowFactories.flatMap(([name, factory]) =>
  [
    { option: 'limit', value: 0, shown: 'a number (0)' },
    { option: 'limit', value: 2.5, shown: 'a number (2.5)' },
    { option: 'window', value: 0, shown: 'a number (0)' },
    { option: 'window', value: '1 fortnight', shown: 'a string ("1 fortnight")' },
  ].map((c) => ({
    ...c,
    label: `${name} ${c.option} ${c.shown}`,
    build: () => factory({ limit: 10, window: '1m', [c.option]: c.value } as WindowOptions),
  })),
);

const storeCases: Case[] = [
  { label: 'MemoryStore maxKeys 0', option: 'maxKeys', value: 0, shown: 'a number (0)' },
  { label: 'MemoryStore maxKeys 1.5', option: 'maxKeys', value: 1.5, shown: 'a number (1.5)' },
].map((c) => ({ ...c, build: () => new MemoryStore({ maxKeys: c.value }) }));

const badStore = { consume: () => undefined };
const limiterCases: Case[] = [
  {
    label: 'RateLimiter missing algorithm',
    option: 'algorithm',
    value: undefined,
    shown: 'undefined',
    build: () => new RateLimiter({} as never),
  },
  {
    label: 'RateLimiter store without reset',
    option: 'store',
    value: badStore,
    shown: 'an object with key consume',
    build: () => new RateLimiter({ algorithm, store: badStore as never }),
  },
  {
    label: "RateLimiter store 'redis'",
    option: 'store',
    value: 'redis',
    shown: 'a string ("redis")',
    build: () => new RateLimiter({ algorithm, store: 'redis' as never }),
  },
  {
    label: 'RateLimiter non-function clock',
    option: 'clock',
    value: 1_700_000_000_000,
    shown: 'a number (1700000000000)',
    build: () => new RateLimiter({ algorithm, clock: 1_700_000_000_000 as never }),
  },
  {
    label: 'RateLimiter non-string prefix',
    option: 'prefix',
    value: 42,
    shown: 'a number (42)',
    build: () => new RateLimiter({ algorithm, prefix: 42 as never }),
  },
];

// HttpLimiter validates store, onStoreError and logger as RateLimiter does (a bad logger
// used to surface only on the request path, as "warn is not a function", once the store failed).
const failingStore = {
  consume: () => Promise.reject(new Error('store down')),
  reset: () => undefined,
};
const emptyLogger = {};
const policyCases: [string, Record<string, unknown>, string, unknown, string][] = [
  [
    'logger {} with a failing store',
    { store: failingStore, logger: emptyLogger },
    'logger',
    emptyLogger,
    'an empty object',
  ],
  [
    "logger 'console'",
    { store: failingStore, logger: 'console' },
    'logger',
    'console',
    'a string ("console")',
  ],
  ["store 'redis'", { store: 'redis' }, 'store', 'redis', 'a string ("redis")'],
  [
    "onStoreError 'retry'",
    { store: failingStore, onStoreError: 'retry' },
    'onStoreError',
    'retry',
    'a string ("retry")',
  ],
];
const httpPolicyCases: Case[] = policyCases.map(([label, options, option, value, shown]) => ({
  label: `HttpLimiter ${label}`,
  option,
  value,
  shown,
  build: () => new HttpLimiter(options as never),
}));

describe('HttpLimiter and RateLimiter reject a bad store, onStoreError or logger alike', () => {
  it.each(policyCases.map((c) => [c[0], c[1]] as const))(
    '%s: the same message',
    (_label, options) => {
      const message = (build: () => unknown) => {
        try {
          build();
        } catch (error) {
          return (error as Error).message;
        }
        return 'no error';
      };
      const http = message(() => new HttpLimiter(options as never));
      expect(http).not.toBe('no error');
      expect(http).toBe(message(() => new RateLimiter({ algorithm, ...options } as never)));
    },
  );

  it('but HttpLimiter, which never resets a key, accepts a store without reset', () => {
    const store = { consume: failingStore.consume };
    expect(() => new HttpLimiter({ store: store as never })).not.toThrow();
    expect(() => new RateLimiter({ algorithm, store: store as never })).toThrow(SluiceConfigError);
  });
});

const throttleStrings = [
  'throttle:0,1',
  'throttle:60,x',
  'throttle:60,0',
  'throttle:',
  'throttle:60,1,',
  'throttle:-60,1',
  'throttle:60,-1',
  'throttle:1.5,1',
  'throttle:60,1.5',
  'throttle:60,1 junk',
  '60/fortnight',
  '0/min',
  '-5/min',
  '2.5/s',
  '60/min/junk',
  '',
];
const throttleCases: Case[] = throttleStrings.map((text) => ({
  label: `throttle string ${JSON.stringify(text)}`,
  option: 'limit',
  value: text,
  shown: `a string (${JSON.stringify(text)})`,
  build: () => parseThrottle(text),
}));

const namedCases: Case[] = [
  {
    label: 'unknown named limiter (resolveLimitInput)',
    option: 'limit',
    value: 'nope',
    shown: 'a string ("nope")',
    build: () => resolveLimitInput('throttle:nope', new ThrottleRegistry()),
  },
  {
    label: 'unknown named limiter (assertDefined)',
    option: 'limit',
    value: 'nope',
    shown: 'a string ("nope")',
    build: () => new ThrottleRegistry().assertDefined('nope'),
  },
];

const limitCases: Case[] = [
  {
    label: 'Limit.perMinute(0)',
    option: 'maxAttempts',
    value: 0,
    shown: 'a number (0)',
    build: () => Limit.perMinute(0),
  },
  {
    label: 'Limit .cost(-1)',
    option: 'cost',
    value: -1,
    shown: 'a number (-1)',
    build: () => Limit.perMinute(60).cost(-1),
  },
];

describe.each([
  ['gcra', gcraCases],
  ['cellThrottle', cellCases],
  ['leakyBucket', leakyCases],
  ['tokenBucket', tokenCases],
  ['window algorithms', windowCases],
  ['MemoryStore', storeCases],
  ['RateLimiter', limiterCases],
  ['HttpLimiter store policy', httpPolicyCases],
  ['parseThrottle', throttleCases],
  ['named limiters', namedCases],
  ['Limit', limitCases],
])('%s: SluiceConfigError naming the option and the value', (_group, cases) => {
  it.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    expectConfigError(c);
  });
});

describe('a bad cost is a TypeError at the call', () => {
  it.each([
    ['-1', -1],
    ['1.5', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['"2"', '2'],
  ])(
    'consume(key, { cost: %s }) throws synchronously and consumes nothing',
    async (shown, cost) => {
      const store = new MemoryStore();
      const limiter = new RateLimiter({ algorithm: gcra({ rate: 2, period: '1s' }), store });
      let error: unknown;
      try {
        // Not awaited: the error must come from the call itself, not from a rejected promise.
        void limiter.consume('k', { cost: cost as number });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect(error).not.toBeInstanceOf(SluiceConfigError);
      expect((error as Error).message).toContain('cost');
      expect((error as Error).message).toContain(shown.replace(/"/g, ''));
      expect(store.size).toBe(0);
      expect((await limiter.peek('k')).remaining).toBe(2);
    },
  );
});
