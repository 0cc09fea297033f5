// RedisStore#operations, the part of docs/guide/operating.md a store implements: the entries of a limiter
// prefix in Redis (one hash, a sorted set of ends, a version), written by one script that
// also publishes the version, heard by every other store on the same Redis through a pub/sub
// connection of its own; on every client, standalone and Cluster.

import type { OperationEntry } from '@sluice/core/store';
import { type RedisCluster, type RedisProcess, startCluster, startRedis } from '@sluice/test-kit';
import { RedisStore } from '../src/index.js';
import {
  CLIENT_KINDS,
  type ClientKind,
  connect,
  type Endpoints,
  type TestClient,
} from './clients.js';

const PREFIX = 'sl';

function ban(id: string, until: number | null, reason = 'abuse'): OperationEntry {
  return { id, kind: 'ban', subject: { ip: id }, until, at: Date.now(), reason };
}

/** Resolves with the first version `listen` hears that satisfies `ok`, or rejects after `ms`. */
function heard(
  store: RedisStore,
  ok: (v: number) => boolean,
  ms = 5000,
): { promise: Promise<number>; stop: () => void } {
  let stop = () => undefined as unknown;
  const promise = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no version heard within ${ms} ms`)), ms);
    const off = store.operations.subscribe(PREFIX, (v) => {
      if (!ok(v)) return;
      clearTimeout(timer);
      off();
      resolve(v);
    });
    stop = () => {
      clearTimeout(timer);
      off();
    };
  });
  return { promise, stop: () => void stop() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

function suite(kind: ClientKind, endpoints: () => Endpoints, cli: () => RedisProcess) {
  let a: TestClient;
  let b: TestClient;
  let storeA: RedisStore;
  let storeB: RedisStore;
  let prefix = 0;
  let p = PREFIX;

  beforeEach(async () => {
    a = await connect(kind, endpoints());
    b = await connect(kind, endpoints());
    // A fresh store prefix per test: no entries left over from the one before.
    prefix++;
    p = PREFIX;
    storeA = new RedisStore({ client: a.client, prefix: `t${prefix}:` });
    storeB = new RedisStore({ client: b.client, prefix: `t${prefix}:` });
  }, 30_000);

  afterEach(async () => {
    await storeA.close();
    await storeB.close();
    await a.close();
    await b.close();
  });

  it('put, load and remove round-trip entries; every write bumps the version', async () => {
    const ops = storeA.operations;
    expect(ops.shared).toBe(true);
    expect(await ops.load(p)).toEqual({ version: 0, entries: [] });
    const one = ban('ip:1.2.3.4', Date.now() + 60_000);
    const two: OperationEntry = {
      id: 'override:user:42',
      kind: 'override',
      subject: { user: '42' },
      until: Date.now() + 60_000,
      at: Date.now(),
      limit: '100/1m',
    };
    expect(await ops.put(p, one)).toBe(1);
    expect(await ops.put(p, two)).toBe(2);
    const loaded = await storeB.operations.load(p);
    expect(loaded.version).toBe(2);
    expect(loaded.entries.sort((x, y) => x.id.localeCompare(y.id))).toEqual([one, two]);
    // Same id: replaced.
    const longer = { ...one, until: one.until! + 1000, reason: 'again' };
    expect(await ops.put(p, longer)).toBe(3);
    expect((await ops.load(p)).entries).toContainEqual(longer);
    expect(await ops.remove(p, one.id)).toBe(4);
    expect(await ops.remove(p, 'absent')).toBe(5);
    expect((await ops.load(p)).entries).toEqual([two]);
    expect(await storeB.operations.version(p)).toBe(5);
    // Another limiter prefix is another set of entries.
    expect(await ops.load('other')).toEqual({ version: 0, entries: [] });
  });

  it('entries expire by themselves: pruned on the next touch, and the keys go with the last', async () => {
    const ops = storeA.operations;
    await ops.put(p, ban('ip:short', Date.now() + 150));
    await ops.put(p, { ...ban('cidr:10.0.0.0/8', null), kind: 'allow' });
    await sleep(300);
    const { entries } = await ops.load(p);
    expect(entries.map((e) => e.id)).toEqual(['cidr:10.0.0.0/8']);
    await ops.remove(p, 'cidr:10.0.0.0/8');
    // Only ends left: the keys expire with the last one, even if nobody touches them.
    await ops.put(p, ban('ip:last', Date.now() + 300));
    const base = `t${prefix}:{${p}}:ops`;
    const server = cli();
    expect(Number(await server.cli('PTTL', base))).toBeGreaterThan(0);
    await until(async () => Number(await server.cli('EXISTS', base, `${base}:exp`)) === 0);
    // The version never expires (a restarted counter could repeat a version a process holds).
    expect(Number(await server.cli('HGET', `${base}:v`, 'v'))).toBe(4);
  });

  it("another process's store hears each write's version through pub/sub", async () => {
    // Listening first: the subscription is set up (and its first check done) before writing.
    const first = heard(storeB, (v) => v === 0);
    await first.promise;
    const next = heard(storeB, (v) => v === 1);
    await storeA.operations.put(p, ban('ip:9.9.9.9', Date.now() + 60_000));
    expect(await next.promise).toBe(1);
    const removed = heard(storeB, (v) => v === 2);
    await storeA.operations.remove(p, 'ip:9.9.9.9');
    expect(await removed.promise).toBe(2);
  });

  it("the pub/sub connection goes when the user's client ends (no store.close())", async () => {
    const server = cli();
    const subscribers = async () =>
      (await server.cli('CLIENT', 'LIST', 'TYPE', 'pubsub'))
        .split('\n')
        .filter((l) => l.trim() !== '').length;
    const before = await subscribers();
    const own = await connect(kind, endpoints());
    const store = new RedisStore({ client: own.client, prefix: `own${prefix}:` });
    store.operations.subscribe(p, () => undefined);
    await until(async () => (await subscribers()) > before);
    await own.close();
    await until(async () => (await subscribers()) === before);
  });

  it('close() closes the pub/sub connection', async () => {
    const server = cli();
    const subscribers = async () =>
      (await server.cli('CLIENT', 'LIST', 'TYPE', 'pubsub'))
        .split('\n')
        .filter((l) => l.trim() !== '').length;
    const before = await subscribers();
    storeB.operations.subscribe(p, () => undefined);
    await until(async () => (await subscribers()) > before);
    await storeB.close();
    await until(async () => (await subscribers()) === before);
  });
}

describe.each(CLIENT_KINDS)('RedisStore#operations on %s, standalone', (kind) => {
  let server: RedisProcess;
  beforeAll(async () => {
    server = await startRedis();
  }, 30_000);
  afterAll(() => server?.stop());
  suite(
    kind,
    () => ({ topology: 'standalone', port: server.port }),
    () => server,
  );

  it('a lost pub/sub connection is caught up when it is back: listeners are told the version', async () => {
    const a = await connect(kind, { topology: 'standalone', port: server.port });
    const b = await connect(kind, { topology: 'standalone', port: server.port });
    const storeA = new RedisStore({ client: a.client, prefix: 'lost:' });
    const storeB = new RedisStore({ client: b.client, prefix: 'lost:' });
    try {
      await heard(storeB, (v) => v === 0).promise;
      // Cut every pub/sub connection, write while it is down, then it comes back by itself.
      const caught = heard(storeB, (v) => v === 1, 10_000);
      await server.cli('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await storeA.operations.put(PREFIX, ban('ip:lost', Date.now() + 60_000));
      expect(await caught.promise).toBe(1);
      // And it hears the next write by message again.
      const next = heard(storeB, (v) => v === 2);
      await storeA.operations.remove(PREFIX, 'ip:lost');
      expect(await next.promise).toBe(2);
    } finally {
      await storeA.close();
      await storeB.close();
      await a.close();
      await b.close();
    }
  }, 30_000);
});

describe.each(['ioredis', 'node-redis 6'] as const)(
  'RedisStore#operations on %s, Cluster',
  (kind) => {
    let cluster: RedisCluster;
    beforeAll(async () => {
      cluster = await startCluster();
    }, 60_000);
    afterAll(() => cluster?.stop());

    it('writes on one client are heard on another and loaded from the slot of the prefix', async () => {
      const endpoints: Endpoints = { topology: 'cluster', ports: cluster.nodes.map((n) => n.port) };
      const a = await connect(kind, endpoints);
      const b = await connect(kind, endpoints);
      const storeA = new RedisStore({ client: a.client });
      const storeB = new RedisStore({ client: b.client });
      try {
        const start = await storeA.operations.version(PREFIX);
        await heard(storeB, (v) => v === start).promise;
        const next = heard(storeB, (v) => v === start + 1);
        await storeA.operations.put(PREFIX, ban('ip:cluster', Date.now() + 60_000));
        expect(await next.promise).toBe(start + 1);
        expect((await storeB.operations.load(PREFIX)).entries.map((e) => e.id)).toEqual([
          'ip:cluster',
        ]);
        // Every prefix's three keys share a slot (else the script fails with CROSSSLOT), a
        // prefix with braces or of any length too.
        for (const prefix of ['a{b}c', '{}', 'x'.repeat(300)]) {
          const version = await storeA.operations.put(prefix, ban('ip:p', Date.now() + 60_000));
          expect(await storeB.operations.load(prefix)).toEqual({
            version,
            entries: [expect.objectContaining({ id: 'ip:p' })],
          });
        }
      } finally {
        await storeA.close();
        await storeB.close();
        await a.close();
        await b.close();
      }
    }, 60_000);
  },
);

describe('RedisStore option operations', () => {
  const client = { evalsha() {}, defineCommand() {}, status: 'wait' } as never;

  it("syncMs (ms or a duration string) is the store's operations.syncMs, which the core's snapshots read", () => {
    expect(new RedisStore({ client }).operations.syncMs).toBeUndefined();
    expect(new RedisStore({ client, operations: { syncMs: '2s' } }).operations.syncMs).toBe(2000);
    expect(new RedisStore({ client, operations: { syncMs: 250 } }).operations.syncMs).toBe(250);
  });

  it.each([
    [{ syncMs: 0 }, 'operations.syncMs'],
    [{ syncMs: 'soon' }, 'operations.syncMs'],
    [{ syncMs: 1.5 }, 'operations.syncMs'],
    [{ synchMs: 100 }, 'synchMs'],
    ['1s', 'operations'],
  ])('refuses operations %p, naming %s', (operations, option) => {
    expect(() => new RedisStore({ client, operations: operations as never })).toThrow(
      expect.objectContaining({ name: 'SluiceConfigError', option }),
    );
  });
});
