// `maxQueued` bounds concurrent arrivals on Redis: 200 requests of `mode: 'queue'` that
// arrive before Redis's first reply were all booked and held with `maxQueued: 20` (their
// slots pushed every later client to 429 until they drained), because a request counted
// against `maxQueued` only once its reply came. Now it counts from before its store call:
// the first conforms now, 19 are booked, 180 find the queue full and get 429 at once.
import { gcra, Limit } from '@sluice/core';
import { HttpLimiter, type HttpVerdict, type RequestView } from '@sluice/core/http';
import type { Algorithm, StoreReservation } from '@sluice/core/store';
import { EPOCH, type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
let redis: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis({ port: server.port, host: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
}, 30_000);

/** A RedisStore that records its reservations' replies. */
class RecordingStore extends RedisStore {
  readonly replies: StoreReservation[] = [];
  override reserve(key: string, algorithm: Algorithm, cost: number, now: number, wait: number) {
    return super.reserve(key, algorithm, cost, now, wait).then((r) => {
      this.replies.push(r);
      return r;
    });
  }
}

const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /q',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});

it('200 concurrent arrivals with maxQueued 20: 20 places (1 now, 19 booked), 180 denied at once', async () => {
  const store = new RecordingStore({
    client: redis,
    clock: 'client',
    prefix: 'qbound:',
    timeoutMs: 30_000, // a loaded machine answering 200 scripts late is no store failure here
  });
  const limiter = new HttpLimiter({
    limit: Limit.per(1, '1s').named('q'),
    store,
    clock: () => EPOCH,
    mode: 'queue',
    maxWait: '1h',
    maxQueued: 20,
    onStoreError: 'deny',
    logger: {
      warn: (message) => {
        throw new Error(message);
      },
    },
  });
  // a first call: the store has checked the server's version, so no call is made twice
  await store.reserve('warm', gcra({ rate: 1, period: '1s' }), 1, EPOCH, 0);
  store.replies.length = 0;
  const gone = Array.from({ length: 200 }, () => new AbortController());
  const verdicts = gone.map(
    (g) => limiter.check(view(), undefined, g.signal) as Promise<HttpVerdict>,
  );
  for (let i = 0; i < 1000 && store.replies.length < 200; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(store.replies.length).toBe(200);
  const booked = store.replies.filter((r) => r.decision.allowed);
  expect(booked.length).toBe(20);
  expect(booked.filter((r) => r.delayMs > 0).length).toBe(19);
  // the 19 waiting ones go away: their slots are given back, and every verdict is in
  for (const g of gone) g.abort();
  const answers = await Promise.all(verdicts);
  expect(answers.filter((v) => v.allowed).length).toBe(1);
});
