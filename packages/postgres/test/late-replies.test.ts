// A reply late in transit: PostgreSQL runs the statement in time (its deadline has not
// passed), but the reply reaches this process after `timeoutMs` (300 ms; replies held
// 1 s), when the caller was already answered with StoreTimeoutError (the limiter's
// `onStoreError` decided it). What the statement charged is given back when the reply
// arrives: the calls leave nothing charged, on pg and on postgres.js. (Before, each such
// call stayed charged: about one per pool connection on pg, over a hundred on postgres.js
// at 300 requests/s.) Replies are held up by a TCP proxy that delays only the server's
// replies (test-kit reply-delay.ts).
import { fixedWindow, gcra } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import {
  createPostgresDatabase,
  type PostgresDatabase,
  type ReplyDelay,
  replyDelayProxy,
} from '@sluice/test-kit';
import pg from 'pg';
import postgres from 'postgres';
import { type PostgresClient, PostgresStore, StoreTimeoutError } from '../src/index.js';

const TIMEOUT_MS = 300;
const DELAY_MS = 1000;
const CALLS = 12;
const LIMIT = 1000;

let db: PostgresDatabase;
let direct: pg.Pool;
let proxy: ReplyDelay;

beforeAll(async () => {
  db = await createPostgresDatabase();
  direct = new pg.Pool({ ...db.config, max: 2 });
  await new PostgresStore({ client: direct, sweepIntervalMs: 0 }).migrate();
  proxy = await replyDelayProxy(db.config.port);
}, 30_000);

afterAll(async () => {
  await proxy?.close();
  await direct?.end();
  await db?.drop();
}, 30_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `key` has left, read without the proxy. */
async function left(key: string, algorithm: Algorithm): Promise<number> {
  const truth = new PostgresStore({ client: direct, sweepIntervalMs: 0, timeoutMs: 10_000 });
  return (await truth.consume(key, algorithm, 0, Date.now())).remaining;
}

/** Waits until `key` has `expected` left (the late replies and their give-backs are in), or 5 s. */
async function settle(key: string, algorithm: Algorithm, expected: number): Promise<number> {
  const until = performance.now() + 5000;
  let now = await left(key, algorithm);
  while (now !== expected && performance.now() < until) {
    await sleep(50);
    now = await left(key, algorithm);
  }
  return now;
}

const DRIVERS: [string, () => { client: PostgresClient; end(): Promise<void> }][] = [
  [
    'pg',
    () => {
      const pool = new pg.Pool({ ...db.config, port: proxy.port, max: 6 });
      return { client: pool, end: () => pool.end() };
    },
  ],
  [
    'postgres.js',
    () => {
      const sql = postgres({ ...db.config, port: proxy.port, max: 6, onnotice: () => {} });
      return { client: sql, end: () => sql.end({ timeout: 1 }) };
    },
  ],
];

describe.each(DRIVERS)('%s: replies late in transit', (name, connect) => {
  let driver: ReturnType<typeof connect>;
  let store: PostgresStore;

  beforeAll(async () => {
    driver = connect();
    store = new PostgresStore({ client: driver.client, timeoutMs: TIMEOUT_MS, sweepIntervalMs: 0 });
    await warm();
  }, 30_000);

  /**
   * Replies not held up: the store knows the database clock's offset (deadlines need it;
   * held-up replies skew it), and the pool has its connections open.
   */
  const warm = async () => {
    // (retried: on a loaded machine a warm-up call may itself time out)
    for (let attempt = 0; attempt < 10; attempt++) {
      const done = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          store.consume(`warm${i}`, gcra({ rate: 1, period: '1s' }), 0, Date.now()),
        ),
      );
      if (done.every((d) => d.status === 'fulfilled')) return;
    }
    throw new Error('the warm-up calls never all answered in time');
  };

  afterAll(async () => {
    proxy.delay(0);
    await driver?.end();
  });

  it.each([
    ['a fixed window', fixedWindow({ limit: LIMIT, window: '1h' })],
    ['GCRA', gcra({ rate: LIMIT, period: '1h', burst: LIMIT })],
  ])(
    '%s: calls charged in time, answered after timeoutMs, leave nothing charged',
    async (_, algorithm) => {
      const key = `${name}:late:${algorithm.kind}`;
      await warm();
      proxy.delay(DELAY_MS);
      // Sent before the first held reply comes back, so each statement runs in time.
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < CALLS; i++) {
        calls.push(store.consume(key, algorithm, 1, Date.now()));
        await sleep(TIMEOUT_MS / CALLS);
      }
      const outcomes = await Promise.allSettled(calls);
      expect(
        outcomes.map((o) => o.status === 'rejected' && o.reason instanceof StoreTimeoutError),
      ).toEqual(outcomes.map(() => true));
      proxy.delay(0);
      expect(await settle(key, algorithm, LIMIT)).toBe(LIMIT);
    },
    30_000,
  );
});
