// The catch-up after a store's pub/sub connection comes back (DESIGN §16): a change published
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
