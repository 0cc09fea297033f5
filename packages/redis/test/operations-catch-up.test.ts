// The catch-up after a store's pub/sub connection comes back (docs/guide/operating.md): a change published
// while the subscriber was away must still reach the process before its next version check.
// Two ways it was lost (a Sentinel failover in CI showed it): the catch-up read the version
// before ioredis's own SUBSCRIBE stood again, and a catch-up read that failed (the store's
// own client still reconnecting) was not tried again.
import { EventEmitter } from 'node:events';
import type { OperationEntry } from '@sluice/core/store';
import { type RedisProcess, startRedis } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { subscriberOf } from '../src/operations/subscriber.js';

const PREFIX = 'sl';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An ioredis-shaped client whose SUBSCRIBE replies when the test says so. */
class FakeIoredis extends EventEmitter {
  status = 'ready';
  readonly subscribes: { channels: string[]; reply: () => void }[] = [];
  evalsha() {}
  defineCommand() {}
  duplicate(): FakeIoredis {
    return new FakeIoredis();
  }
  subscribe(...channels: string[]): Promise<unknown> {
    return new Promise((resolve) => this.subscribes.push({ channels, reply: () => resolve(1) }));
  }
  unsubscribe(): Promise<unknown> {
    return Promise.resolve(0);
  }
  disconnect(): void {}
}

test('ioredis: the catch-up comes after the SUBSCRIBE that follows a reconnect is answered', async () => {
  const client = new FakeIoredis();
  let connection: FakeIoredis | undefined;
  client.duplicate = () => {
    connection = new FakeIoredis();
    return connection;
  };
  const resubscribed = jest.fn();
  const subscriber = subscriberOf(client, { message: () => undefined, resubscribed });
  const added = subscriber.add('a');
  connection!.emit('ready');
  connection!.subscribes[0]!.reply();
  await added;

  connection!.emit('ready'); // back after a lost connection
  await sleep(5);
  expect(resubscribed).not.toHaveBeenCalled();
  expect(connection!.subscribes[1]?.channels).toEqual(['a']);
  connection!.subscribes[1]!.reply();
  await sleep(0);
  expect(resubscribed).toHaveBeenCalledTimes(1);
  await subscriber.close();
});

describe('on a redis-server', () => {
  let redis: RedisProcess;
  let client: Redis;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis({ host: '127.0.0.1', port: redis.port });
    client.on('error', () => undefined);
    store = new RedisStore({ client, timeoutMs: 2000 });
  }, 30_000);

  afterAll(async () => {
    await store?.close();
    client?.disconnect();
    await redis?.stop();
  }, 30_000);

  test('a catch-up read that fails after the subscriber is back is tried again until it succeeds', async () => {
    const heard: number[] = [];
    const off = store.operations.subscribe(PREFIX, (v) => heard.push(v));
    const entry: OperationEntry = {
      id: 'x',
      kind: 'ban',
      subject: { ip: 'x' },
      until: null,
      at: Date.now(),
      reason: 'test',
    };
    // The subscription stands (its first catch-up is heard) before anything is published.
    const deadline = Date.now() + 5000;
    while (heard.length === 0 && Date.now() < deadline) await sleep(20);
    expect(heard).toEqual([0]);

    // The next two version reads fail, as they do while the store's client reconnects.
    const real = store.operations.version.bind(store.operations);
    let failing = 2;
    const reads: number[] = [];
    store.operations.version = (prefix: string) => {
      reads.push(Date.now());
      if (failing-- > 0) return Promise.reject(new Error('connection is down'));
      return real(prefix);
    };
    // A change published, then the subscriber's connection dropped: whether its message
    // came or not, the catch-up after the reconnect reads the version, fails twice and gets
    // it on its third try.
    const version = await store.operations.put(PREFIX, entry);
    await client.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    const by = Date.now() + 10_000;
    while (!(reads.length >= 3 && heard.at(-1) === version) && Date.now() < by) await sleep(20);
    expect(reads.length).toBe(3);
    expect(heard.at(-1)).toBe(version);
    off();
  }, 30_000);
});

describe('one pub/sub connection per client', () => {
  let redis: RedisProcess;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis({ host: '127.0.0.1', port: redis.port });
    client.on('error', () => undefined);
  }, 30_000);

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  }, 30_000);

  /** The pub/sub connections on the server (`CLIENT LIST TYPE pubsub`). */
  const pubsubConnections = async () =>
    String(await client.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
      .split('\n')
      .filter((line) => line.trim() !== '').length;

  test('12 stores on one client: one connection, no listener warning, each store hears until it closes', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const stores = Array.from({ length: 12 }, () => new RedisStore({ client, timeoutMs: 2000 }));
    try {
      const heard = stores.map(() => [] as number[]);
      const offs = stores.map((store, i) =>
        store.operations.subscribe(PREFIX, (v) => heard[i]!.push(v)),
      );
      const deadline = Date.now() + 5000;
      while (heard.some((h) => h.length === 0) && Date.now() < deadline) await sleep(20);
      expect(await pubsubConnections()).toBe(1);

      // Store 0 writes; every store hears the version by message (their own catch-ups are done).
      const entry: OperationEntry = {
        id: 'y',
        kind: 'ban',
        subject: { ip: 'y' },
        until: null,
        at: Date.now(),
        reason: 'test',
      };
      const v1 = await stores[0]!.operations.put(PREFIX, entry);
      const by = Date.now() + 5000;
      while (heard.some((h) => h.at(-1) !== v1) && Date.now() < by) await sleep(20);
      expect(heard.map((h) => h.at(-1))).toEqual(stores.map(() => v1));

      // Half of them close: the others still hear, on the same one connection.
      for (const off of offs.slice(0, 6)) off();
      await Promise.all(stores.slice(0, 6).map((s) => s.close()));
      const v2 = await stores[11]!.operations.remove(PREFIX, 'y');
      const by2 = Date.now() + 5000;
      while (heard.slice(6).some((h) => h.at(-1) !== v2) && Date.now() < by2) await sleep(20);
      expect(heard.slice(6).map((h) => h.at(-1))).toEqual(stores.slice(6).map(() => v2));
      expect(heard.slice(0, 6).map((h) => h.at(-1))).toEqual(stores.slice(0, 6).map(() => v1));
      expect(await pubsubConnections()).toBe(1);

      // The last store closed: the connection is gone.
      await Promise.all(stores.slice(6).map((s) => s.close()));
      const gone = Date.now() + 5000;
      while ((await pubsubConnections()) > 0 && Date.now() < gone) await sleep(20);
      expect(await pubsubConnections()).toBe(0);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await Promise.all(stores.map((s) => s.close()));
    }
  }, 30_000);
});
