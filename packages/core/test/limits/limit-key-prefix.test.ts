// One key rule for every front door (keys/limit-key-prefix.ts): the same limit has the same
// key prefix on HTTP and on a protocol limit (GraphQL, ws, tRPC), algorithm tag included;
// a protocol limit moved from GCRA to a fixed window no longer reads the GCRA's state.
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import {
  fixedWindow,
  Limit,
  MemoryStore,
  RateLimiter,
  type RequestView,
  slidingLog,
  slidingWindow,
} from '../../src/index.js';
import { ProtocolLimiter } from '../../src/protocol-api.js';
import type { LimitAlgorithmFactory } from '../../src/store-api.js';

const view: RequestView = { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {} };
const clock = () => EPOCH;

/** Every full key `store` holds. */
const keysOf = (store: MemoryStore): string[] =>
  store.dump().keys.map(([space, key]) => (space ?? '') + key);

/** `<prefix><tag>:<limit name>:`: the part of a key before the route (or channel). */
const limitPart = (key: string): string => `${key.split(':').slice(0, 2).join(':')}:`;

const factories: [string, LimitAlgorithmFactory | undefined, string][] = [
  ['GCRA (the default)', undefined, 'sl:api:'],
  [
    'a fixed window',
    ({ limit, periodMs }) => fixedWindow({ limit, window: periodMs }),
    'sl@fw:api:',
  ],
  [
    'a sliding window',
    ({ limit, periodMs }) => slidingWindow({ limit, window: periodMs }),
    'sl@sw:api:',
  ],
  [
    'a sliding log',
    ({ limit, periodMs }) => slidingLog({ limit, window: periodMs }),
    'sl@log:api:',
  ],
];

describe.each(factories)('on %s', (_, algorithm, expected) => {
  it('HTTP and a protocol limit key the same limit under the same prefix', async () => {
    const limit = Limit.perMinute(10).named('api');
    const httpStore = new MemoryStore();
    const http = new HttpLimiter({
      store: httpStore,
      clock,
      limit,
      ...(algorithm && { algorithm }),
    });
    expect((http.check(view) as HttpVerdict).allowed).toBe(true);
    const protocolStore = new MemoryStore();
    const protocol = new ProtocolLimiter({
      store: protocolStore,
      clock,
      limit,
      channel: 'graphql',
      ...(algorithm && { algorithm }),
    });
    expect((await protocol.check(view)).allowed).toBe(true);
    const [httpKey] = keysOf(httpStore);
    const [protocolKey] = keysOf(protocolStore);
    expect(limitPart(protocolKey!)).toBe(limitPart(httpKey!));
    expect(limitPart(httpKey!)).toBe(expected);
  });
});

it('RateLimiter keys by the same rule, without a limit name: <prefix><tag>:<key>', async () => {
  const store = new MemoryStore();
  const limiter = new RateLimiter({
    algorithm: fixedWindow({ limit: 2, window: '1m' }),
    store,
    prefix: 'jobs',
    clock,
  });
  await limiter.consume('k');
  expect(keysOf(store)).toEqual(['jobs@fw:k']);
});

it('a protocol limit switched from GCRA to a fixed window starts afresh, on its own key', async () => {
  const store = new MemoryStore();
  const limit = Limit.perMinute(3).named('api');
  const before = new ProtocolLimiter({ store, clock, limit, channel: 'ws' });
  for (let i = 0; i < 3; i++) expect((await before.check(view)).allowed).toBe(true);
  expect((await before.check(view)).allowed).toBe(false);
  const gcraKeys = keysOf(store);
  // The deploy that moves the limit to a fixed window, on the same store.
  const after = new ProtocolLimiter({
    store,
    clock,
    limit,
    channel: 'ws',
    algorithm: ({ limit: n, periodMs }) => fixedWindow({ limit: n, window: periodMs }),
  });
  const first = await after.check(view);
  expect(first.allowed).toBe(true);
  expect(first.decision.remaining).toBe(2);
  const fixedKeys = keysOf(store).filter((k) => !gcraKeys.includes(k));
  expect(fixedKeys).toHaveLength(1);
  expect(limitPart(fixedKeys[0]!)).not.toBe(limitPart(gcraKeys[0]!));
  // The GCRA's state is where it was, untouched: still spent.
  expect((await before.check(view)).allowed).toBe(false);
});
