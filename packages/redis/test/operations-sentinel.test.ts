import { join } from 'node:path';
// docs/guide/operating.md through Redis Sentinel: process A (this one) bans and unbans through
// LimitOperations on a Sentinel client; process B (operations-worker.ts, its own Sentinel
// client) decides without pause. B's version check runs only every 10 minutes, so every
// change it sees within the bounds below came by pub/sub, or by the catch-up its subscriber
// does when it is subscribed again: before a failover, and after the master is killed and
// the replica promoted (B's subscriber reconnects to the new master and subscribes again).
// Beside it, C in this process on a node-redis Sentinel client (whose own pub/sub connection
// does the subscribing) with a 500 ms version check: it catches up within that after a
// failover whatever its subscription does.
import { gcra, LimitOperations, RateLimiter } from '@sluice/core';
import {
  type OperationsWorker,
  type RedisSentinel,
  startOperationsWorker,
  startSentinel,
} from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { connect, type TestClient } from './clients.js';
import { KEY } from './operations-worker.js';

/** Process B: operations-worker.ts. */
const WORKER = join(__dirname, 'operations-worker.ts');

// Bounds for a loaded machine: a message takes ms; a subscriber that reconnects after a
// failover takes its client's retry (ioredis: up to 2 s between tries) plus the catch-up.
const MESSAGE_BOUND_MS = 1000;
const FAILOVER_BOUND_MS = 15_000;
/** C's version check. */
const C_SYNC_MS = 500;

const now = () => performance.timeOrigin + performance.now();

let sentinel: RedisSentinel;
let client: Redis;
let store: RedisStore;
let ops: LimitOperations;
let worker: OperationsWorker | undefined;
let c: { client: TestClient; store: RedisStore; limiter: RateLimiter } | undefined;

beforeAll(async () => {
  sentinel = await startSentinel();
  client = new Redis({
    name: sentinel.name,
    sentinels: sentinel.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
  });
  client.on('error', () => undefined);
  store = new RedisStore({ client, timeoutMs: 10_000 });
  ops = new LimitOperations({ store });
  const cClient = await connect('node-redis 6', {
    topology: 'sentinel',
    name: sentinel.name,
    sentinelPorts: sentinel.sentinelPorts,
  });
  const cStore = new RedisStore({
    client: cClient.client,
    timeoutMs: 10_000,
    operations: { syncMs: C_SYNC_MS },
  });
  // A rate no test comes near: every denial is the operator's.
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 1_000_000, period: '1s' }),
    store: cStore,
  });
  await limiter.consume('warm');
  c = { client: cClient, store: cStore, limiter };
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await c?.store.close();
  await c?.client.close();
  await store?.close();
  client?.disconnect();
  await sentinel?.stop();
}, 30_000);

/** Waits (bounded) until `redis` answers again: it reconnects to the promoted replica. */
async function ready(redis: Redis): Promise<void> {
  const deadline = Date.now() + FAILOVER_BOUND_MS;
  for (;;) {
    try {
      if (redis.status === 'ready' && (await redis.ping()) === 'PONG') return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error("A's client did not reconnect");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** ms from `act()` resolving to B's first decision with answer `denied` (0: B had it first). */
async function seen(denied: boolean, act: () => Promise<unknown>, bound: number): Promise<number> {
  const flipped = worker!.flip(denied);
  await act();
  const done = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`B did not see it within ${bound} ms`)), bound);
  });
  try {
    return Math.max(0, (await Promise.race([flipped, late])) - done);
  } finally {
    clearTimeout(timer);
  }
}

/** ms from now until C's decisions of KEY answer `denied` (decided every 10 ms), bounded. */
async function cSees(denied: boolean, bound: number): Promise<number> {
  const start = now();
  for (;;) {
    if (!(await c!.limiter.consume(KEY)).allowed === denied) return now() - start;
    if (now() - start > bound) throw new Error(`C did not see it within ${bound} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a ban through Sentinel reaches a second process; after a failover its subscriber is back and catches up', async () => {
  worker = await startOperationsWorker(WORKER, {
    sentinel: { name: sentinel.name, ports: sentinel.sentinelPorts },
    syncMs: 600_000,
    deaf: false,
  });
  await worker.flip(false);
  const before = await seen(true, () => ops.ban({ key: KEY }, { for: '1h' }), MESSAGE_BOUND_MS);
  const cBefore = await cSees(true, MESSAGE_BOUND_MS);
  await seen(false, () => ops.unban({ key: KEY }), MESSAGE_BOUND_MS);
  await cSees(false, MESSAGE_BOUND_MS);

  await sentinel.sync();
  await sentinel.failover();
  await ready(client);
  // A's client follows the failover too: its first write lands on the promoted replica, with
  // the version it had replicated. B hears it by message, or by its catch-up once subscribed
  // again, not by its 10-minute version check.
  const after = await seen(true, () => ops.ban({ key: KEY }, { for: '1h' }), FAILOVER_BOUND_MS);
  // C: within its version check at least (plus a loaded machine's margin).
  const cAfter = await cSees(true, C_SYNC_MS + MESSAGE_BOUND_MS);
  // Subscribed on the new master: the next change comes by message again.
  const next = await seen(false, () => ops.unban({ key: KEY }), MESSAGE_BOUND_MS);
  expect(await sentinel.masterPort()).toBe(sentinel.replica.port);
  console.info(
    `Sentinel: ban seen by B ${before.toFixed(1)} ms after ban(); after failover ${after.toFixed(1)} ms, then unban ${next.toFixed(1)} ms; C (node-redis) ${cBefore.toFixed(1)} ms, after failover ${cAfter.toFixed(1)} ms`,
  );
}, 120_000);
