// "Failover hands exhausted clients fresh buckets" ("Keys already over
// the limit are remembered in-process"). On a real 3-master Redis Cluster, the master serving
// an exhausted user's slot is killed (SIGKILL); under onStoreError 'insurance' the user stays
// denied, while a fresh user of that node is decided by the in-memory insurance store.
import { gcra, RateLimiter } from '@sluice/core';
import { type RedisCluster, startCluster } from '@sluice/test-kit';
import calculateSlot from 'cluster-key-slot';
import { Cluster } from 'ioredis';
import { RedisStore } from '../src/index.js';

let cluster: RedisCluster;
let client: Cluster;

beforeAll(async () => {
  // The other masters keep serving their slots while one is down.
  cluster = await startCluster(['--cluster-require-full-coverage', 'no']);
  client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  await client.ping();
}, 60_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
}, 30_000);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

it("master of an exhausted user's slot killed: 'insurance' keeps denying the user (0 admissions), fresh users get the insurance bucket", async () => {
  const messages: string[] = [];
  const store = new RedisStore({ client, timeoutMs: 200 });
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: 5, period: '1m' }), // 5 back to back, then 1 every 12 s
    store,
    prefix: 'ol',
    logger: { warn: (m: string) => void messages.push(m) },
    breaker: { cooldownMs: 200 },
  });
  const portOf = (key: string) => {
    const [, port] = client.slots[calculateSlot(store.keyFor(`ol:${key}`))]![0]!.split(':');
    return Number(port);
  };
  const users = Array.from({ length: 30 }, (_, i) => `user-${i}`);
  // Every user uses up their 5 and is denied once: Redis has said they are over the limit.
  for (const user of users) {
    for (let i = 0; i < 5; i++) expect((await limiter.consume(user)).allowed).toBe(true);
    expect((await limiter.consume(user)).allowed).toBe(false);
  }
  const victim = cluster.nodes.find((n) => n.port === portOf('user-0'))!;
  const exhausted = users.filter((u) => portOf(u) === victim.port);
  const fresh = Array.from({ length: 60 }, (_, i) => `fresh-${i}`).filter(
    (u) => portOf(u) === victim.port,
  );
  expect(exhausted.length).toBeGreaterThan(3);
  expect(fresh.length).toBeGreaterThan(3);

  await victim.kill();
  let admittedExhausted = 0;
  let deniedExhausted = 0;
  let admittedFresh = 0;
  const start = performance.now();
  // 2 s of traffic: every exhausted user and every fresh user of the dead node, 10 rounds.
  for (let round = 0; round < 10; round++) {
    const decisions = await Promise.all([
      ...exhausted.map((u) => limiter.consume(u)),
      ...fresh.map((u) => limiter.consume(u)),
    ]);
    for (const [i, d] of decisions.entries()) {
      if (i < exhausted.length) {
        if (d.allowed) admittedExhausted++;
        else deniedExhausted++;
        // What Redis said, counted down: at most 12 s, never -1, nothing remaining.
        expect(d.retryAfterMs).toBeGreaterThan(0);
        expect(d.retryAfterMs).toBeLessThanOrEqual(12_000);
        expect(d.remaining).toBe(0);
      } else if (d.allowed) admittedFresh++;
    }
    await sleep(200);
  }
  expect(performance.now() - start).toBeLessThan(10_000);
  expect(admittedExhausted).toBe(0);
  expect(deniedExhausted).toBe(10 * exhausted.length);
  // The outage was real: the insurance store admitted the fresh users (5 each), and it logged.
  expect(admittedFresh).toBe(5 * fresh.length);
  expect(messages[0]).toMatch(/store failing/);
}, 30_000);
