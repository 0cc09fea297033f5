// A partial outage on a real 3-master Redis Cluster ("Under faults"): one master
// stalled (SIGSTOP) under 200 requests a second spread over every node. The limiter keeps one
// circuit breaker per node, so the healthy masters go on deciding on Redis, and it logs
// exactly two lines for the outage: one when it starts, one when the node answers again.
import { gcra, RateLimiter } from '@sluice/core';
import { type RedisCluster, startCluster } from '@sluice/test-kit';
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { RedisStore } from '../src/index.js';

let cluster: RedisCluster;
let client: Cluster;

beforeAll(async () => {
  // A stalled master must not take the whole Cluster down (cluster_state:fail) if the stall
  // outlasts the node timeout on a slow machine: this test is about a partial outage.
  cluster = await startCluster(['--cluster-require-full-coverage', 'no']);
  client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  await client.ping();
}, 60_000);

afterAll(async () => {
  for (const node of cluster?.nodes ?? []) node.resume();
  client?.disconnect();
  await cluster?.stop();
}, 30_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

it('one master stalled at 200 requests/s: 2 log lines (start, end); the healthy masters keep deciding on Redis', async () => {
  const { messages, logger } = {
    messages: [] as string[],
    logger: { warn: (m: string) => void messages.push(m) },
  };
  // 500 ms: a healthy master under a loaded CI machine must not count as failing too.
  const store = new RedisStore({ client, timeoutMs: 500 });
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 1000, period: '1s' }),
    store,
    prefix: 'partial',
    logger,
  });
  /** The node serving a limiter key, by its port. */
  const portOf = (key: string) => {
    const [, port] = client.slots[calculateSlot(store.keyFor(`partial:${key}`))]![0]!.split(':');
    return Number(port);
  };
  for (let i = 0; i < 60; i++) await limiter.consume(`user-${i}`); // every node seen
  const victim = cluster.nodes[1]!;
  const healthyKeys = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}-${i}`).filter((k) => portOf(k) !== victim.port);

  /** One request every 5 ms, on keys spread over every node, for `ms`. */
  const drive = async (tag: string, ms: number) => {
    const start = performance.now();
    const pending: Promise<unknown>[] = [];
    for (let i = 0; performance.now() - start < ms; i++) {
      pending.push(limiter.consume(`${tag}-${i % 60}`));
      await sleep(5);
    }
    await Promise.all(pending);
  };

  victim.pause();
  try {
    await drive('during', 1500);
  } finally {
    victim.resume();
  }
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatch(/store failing/);
  // The healthy masters decided the outage's requests on Redis (their keys were written).
  const written = await Promise.all(
    healthyKeys('during', 60).map((k) => client.exists(store.keyFor(`partial:${k}`))),
  );
  expect(written.length).toBeGreaterThan(20);
  expect(written.every((e) => e === 1)).toBe(true);

  // The stalled node answers again: one line, and traffic goes on without another.
  const deadline = performance.now() + 10_000;
  while (!messages.some((m) => m.includes('answering again'))) {
    if (performance.now() > deadline) throw new Error(`no recovery: ${JSON.stringify(messages)}`);
    await drive('after', 100);
  }
  await drive('after', 500);
  expect(messages).toHaveLength(2);
  expect(messages[1]).toMatch(/answering again/);
}, 30_000);
