// RedisStore over Valkey GLIDE (@valkey/valkey-glide 2.x) beyond the store conformance suite
// (conformance-glide*.test.ts): the client is recognised by its shape, server errors are
// worded as Redis words them (the NOSCRIPT fallback, a script's error), the Cluster's
// failure domains are its masters, and operator entries written through one store are
// applied by a limiter on another client (GLIDE's own subscription, no duplicate()), on a
// standalone redis-server and on a Cluster; the pub/sub client goes with the store.
import { gcra, LimitOperations, RateLimiter, SluiceConfigError } from '@sluice/core';
import {
  type RedisCluster,
  type RedisProcess,
  startCluster,
  startRedis,
  thrownBy,
} from '@sluice/test-kit';
import type { GlideClient, GlideClusterClient } from '@valkey/valkey-glide';
import { scriptClient } from '../src/clients/client.js';
import { RedisStore } from '../src/index.js';
import { connectGlide, type GlideEndpoints } from './glide.js';

type Glide = GlideClient | GlideClusterClient;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unique = () => Math.random().toString(36).slice(2, 10);

/** The pub/sub connections a server holds (`CLIENT LIST TYPE pubsub`). */
async function pubsubClients(nodes: RedisProcess[]): Promise<number> {
  let n = 0;
  for (const node of nodes) {
    n += (await node.cli('CLIENT', 'LIST', 'TYPE', 'pubsub')).split('\n').filter(Boolean).length;
  }
  return n;
}

/**
 * Polls `check` every 20 ms until it holds, for at most `ms`: a pub/sub message's delivery
 * takes no fixed time (the bound only ends a test whose subscription never stood: the
 * stores' version check is 10 minutes away).
 */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await sleep(20);
  }
}

function suite(topology: 'standalone' | 'Cluster') {
  let nodes: RedisProcess[];
  let stop: () => Promise<void>;
  let endpoints: GlideEndpoints;
  const clients: Glide[] = [];
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    if (topology === 'standalone') {
      const server = await startRedis();
      nodes = [server];
      stop = () => server.stop();
      endpoints = { cluster: false, port: server.port };
    } else {
      const cluster: RedisCluster = await startCluster();
      nodes = cluster.nodes;
      stop = () => cluster.stop();
      endpoints = { cluster: true, ports: nodes.map((n) => n.port) };
    }
  }, 60_000);

  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const c of clients) c.close();
    await stop?.();
  });

  async function client(): Promise<Glide> {
    const c = await connectGlide(endpoints);
    clients.push(c);
    return c;
  }

  function store(c: Glide, prefix: string): RedisStore {
    // The version check 10 minutes away: an entry applied within the test came by pub/sub.
    const s = new RedisStore({ client: c, prefix, operations: { syncMs: '10m' } });
    stores.push(s);
    return s;
  }

  it('is taken by its shape, named by its kind; a Cluster has failure domains, its masters', async () => {
    const c = await client();
    const driver = scriptClient(c)!;
    expect({ kind: driver.kind, cluster: driver.cluster }).toEqual(
      topology === 'Cluster'
        ? { kind: 'a Valkey GLIDE GlideClusterClient', cluster: true }
        : { kind: 'a Valkey GLIDE GlideClient', cluster: false },
    );
    const s = store(c, `kind${unique()}:`);
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 2, period: '1h', burst: 2 }),
      store: s,
    });
    const key = `k:${unique()}`;
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push((await limiter.consume(key)).allowed);
    expect(allowed).toEqual([true, true, false]);
    if (topology === 'Cluster') {
      const masters = nodes.map((n) => `127.0.0.1:${n.port}`);
      // The slot table is read on the first question (CLUSTER SLOTS), then known.
      await eventually(async () => s.failureDomain!(key) !== '');
      expect(masters).toContain(s.failureDomain!(key));
      // Keys over every master: three domains.
      const domains = new Set(Array.from({ length: 50 }, (_, i) => s.failureDomain!(`d${i}`)));
      expect([...domains].sort()).toEqual([...masters].sort());
    } else {
      expect(s.failureDomain).toBeUndefined();
    }
  });

  it('given as the options, it is a SluiceConfigError saying new RedisStore({ client })', async () => {
    const c = await client();
    const error = thrownBy(() => new RedisStore(c as never));
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as Error).message).toContain('new RedisStore({ client })');
  });

  it("server errors read as Redis's: a script's error, NOSCRIPT answered by EVAL after SCRIPT FLUSH", async () => {
    const c = await client();
    const driver = scriptClient(c)!;
    const key = `e:${unique()}`;
    await expect(
      driver.eval("return redis.error_reply('ERR sluice: boom')", 1, [key]),
    ).rejects.toThrow(/^ERR sluice: boom$/);
    await expect(driver.eval("return redis.error_reply('BUSYKEY x')", 1, [key])).rejects.toThrow(
      /^BUSYKEY x$/,
    );
    await expect(driver.evalsha('0'.repeat(40), 1, [key], false)).rejects.toThrow(/^NOSCRIPT /);
    const s = store(c, `flush${unique()}:`);
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 5, period: '1h', burst: 5 }),
      store: s,
    });
    expect((await limiter.consume(key)).remaining).toBe(4);
    for (const node of nodes) await node.cli('SCRIPT', 'FLUSH');
    // Known by SHA to the client, gone from the server: EVALSHA, NOSCRIPT, EVAL.
    expect((await limiter.consume(key)).remaining).toBe(3);
  });

  it('a ban written through one store is applied by a limiter on another client; the pub/sub client goes with the stores', async () => {
    const before = await pubsubClients(nodes);
    const prefix = `ops${unique()}:`;
    const writer = store(await client(), prefix);
    const reader = store(await client(), prefix);
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1h', burst: 100 }),
      store: reader,
    });
    const key = `user:${unique()}`;
    // The first decision sets up the subscription (a second GLIDE client of the same options).
    expect((await limiter.consume(key)).allowed).toBe(true);
    await eventually(async () => (await pubsubClients(nodes)) > before);
    const ops = new LimitOperations({ store: writer });
    await ops.ban({ key }, { for: '1h', reason: 'abuse' });
    await eventually(async () => !(await limiter.consume(key)).allowed);
    expect((await limiter.consume(`user:${unique()}`)).allowed).toBe(true);
    await ops.unban({ key });
    await eventually(async () => (await limiter.consume(key)).allowed);
    await reader.close();
    await writer.close();
    await eventually(async () => (await pubsubClients(nodes)) === before);
  }, 30_000);

  it("the pub/sub client goes when the user's client is closed (no store.close()); calls fail at once", async () => {
    const before = await pubsubClients(nodes);
    const c = await connectGlide(endpoints);
    const algorithm = gcra({ rate: 100, period: '1h', burst: 100 });
    const s = new RedisStore({ client: c, prefix: `end${unique()}:` });
    const limiter = new RateLimiter({ algorithm, store: s });
    expect((await limiter.consume(`user:${unique()}`)).allowed).toBe(true);
    await eventually(async () => (await pubsubClients(nodes)) > before);
    c.close();
    await expect(s.consume(`user:${unique()}`, algorithm, 1, Date.now())).rejects.toThrow(
      'sluice: the Redis client is close',
    );
    // GLIDE says nothing of a close: the store reads `isClosed` every second, then closes its
    // pub/sub client, whose connection the server drops when GLIDE's core lets it go.
    await eventually(async () => (await pubsubClients(nodes)) === before, 10_000);
  }, 30_000);
}

describe('RedisStore on a Valkey GLIDE GlideClient, standalone', () => suite('standalone'));
describe('RedisStore on a Valkey GLIDE GlideClusterClient, Cluster', () => suite('Cluster'));
