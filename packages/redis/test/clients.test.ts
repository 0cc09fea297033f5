// RedisStore tells clients apart by shape: every supported kind is taken, anything else is a
// SluiceConfigError naming the supported kinds and describing the value by kind only; the
// server's version is checked on the first call (below 6.0 every call fails with
// RedisVersionError naming the version found and the one needed).
import { gcra, RateLimiter, SluiceConfigError } from '@sluice/core';
import {
  EPOCH,
  expectNoSecret,
  type RedisProcess,
  SECRET,
  startRedis,
  thrownBy,
} from '@sluice/test-kit';
import { createClient, createCluster } from 'redis';
import { createClient as createClient5 } from 'redis5';
import { RedisStore, RedisVersionError } from '../src/index.js';
import { CLIENT_KINDS, connect, type TestClient } from './clients.js';

const algorithm = gcra({ rate: 10, period: '1m' });

/** An ioredis-shaped stand-in whose INFO reports `info`; counts its script calls. */
function fakeClient(info: () => Promise<string>) {
  const calls = { evalsha: 0 };
  const client = {
    status: 'ready',
    defineCommand: () => undefined,
    info,
    evalsha: async () => {
      calls.evalsha++;
      return [1, 0];
    },
    eval: async () => [1, 0],
    del: async () => 1,
  };
  return { client, calls };
}

describe('the server version, checked on the first call', () => {
  it('Redis 5.0: ready() and every call reject with RedisVersionError naming 5.0.14 and 6.0; no script is sent', async () => {
    const { client, calls } = fakeClient(
      async () => '# Server\r\nredis_version:5.0.14\r\nredis_mode:standalone\r\n',
    );
    const store = new RedisStore({ client });
    const error = await store.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisVersionError);
    expect(error).toMatchObject({ found: '5.0.14', needed: '6.0' });
    expect((error as Error).message).toMatch(/needs Redis 6\.0 or later.*runs Redis 5\.0\.14/);
    const key = 'user:secret-key-text';
    for (const call of [
      () => store.consume(key, algorithm, 1, EPOCH),
      () => store.consumeAll([{ key, algorithm, cost: 1 }], EPOCH),
      () => store.refund(key, algorithm, 1, EPOCH, EPOCH),
      () => store.reset(key),
    ]) {
      const e = await Promise.resolve(call()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RedisVersionError);
      expect((e as Error).message).not.toContain('secret-key-text');
    }
    expect(calls.evalsha).toBe(0);
  });

  it.each([
    ['Redis 6.0.20', 'redis_version:6.0.20\r\n'],
    ['Redis 6.2.14', 'redis_version:6.2.14\r\n'],
    ['Valkey 8.0.1', 'redis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n'],
  ])('%s: ready() resolves and calls run', async (_, info) => {
    const { client, calls } = fakeClient(async () => `# Server\r\n${info}`);
    const store = new RedisStore({ client });
    await expect(store.ready()).resolves.toBeUndefined();
    await store.consume('a', algorithm, 1, EPOCH);
    expect(calls.evalsha).toBe(1);
  });

  it('an INFO the server refuses (an ACL without INFO) does not block: the call runs', async () => {
    const { client, calls } = fakeClient(async () => {
      throw new Error("NOPERM this user has no permissions to run the 'info' command");
    });
    const store = new RedisStore({ client });
    await store.consume('a', algorithm, 1, EPOCH);
    expect(calls.evalsha).toBe(1);
  });

  describe('a real server (Redis 7.0 here), on every client', () => {
    let server: RedisProcess;
    const clients: TestClient[] = [];
    beforeAll(async () => {
      server = await startRedis();
    });
    afterAll(async () => {
      for (const c of clients) await c.close();
      await server?.stop();
    });
    it.each(CLIENT_KINDS)('%s: ready() resolves', async (kind) => {
      const c = await connect(kind, { topology: 'standalone', port: server.port });
      clients.push(c);
      await expect(new RedisStore({ client: c.client }).ready()).resolves.toBeUndefined();
    });
  });
});

describe('a value that is no supported client', () => {
  const url = `redis://:${SECRET}@127.0.0.1:6379/0`;
  it.each([
    ['a Redis URL with a password', url, `a string of ${url.length} characters`],
    [
      'an object with a password',
      { host: 'h', password: SECRET },
      'an object with keys host, password',
    ],
    ['an empty object', {}, 'an empty object'],
    ['a Map', new Map([['password', SECRET]]), 'a Map'],
    ['an ioredis-like object without status', { evalsha: () => 1 }, 'an object with key evalsha'],
  ])('%s: a SluiceConfigError naming the supported kinds, the value by kind', (_, client, kind) => {
    const error = thrownBy(() => new RedisStore({ client: client as never }));
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe('client');
    const message = (error as Error).message;
    expect(message).toContain('ioredis');
    expect(message).toContain('iovalkey');
    expect(message).toContain('node-redis');
    expect(message).toContain('createCluster');
    expect(message).toContain('GlideClusterClient');
    expect(message).toContain(`got ${kind}`);
    expectNoSecret(error);
  });
});

describe('a node-redis client where the options or a store belong', () => {
  const url = `redis://:${SECRET}@127.0.0.1:1`;
  it.each([
    ['node-redis 6 createClient', () => createClient({ url }), 'a node-redis client'],
    ['node-redis 5 createClient', () => createClient5({ url }), 'a node-redis client'],
    [
      'node-redis 6 createCluster',
      () => createCluster({ rootNodes: [{ url }] }),
      'a node-redis Cluster client',
    ],
  ])('%s: named by kind, with what to write instead', (_, make, kind) => {
    const client = make();
    const asOptions = thrownBy(() => new RedisStore(client as never));
    expect(asOptions?.message).toContain('new RedisStore({ client })');
    expect(asOptions?.message).toContain(kind);
    expectNoSecret(asOptions);
    const asStore = thrownBy(() => new RateLimiter({ algorithm, store: client as never }));
    expect(asStore).toBeInstanceOf(SluiceConfigError);
    expect(asStore?.message).toContain('RedisStore');
    expectNoSecret(asStore);
    // As the store's client, unconnected: refused, saying to connect first (nothing is sent).
    const unconnected = thrownBy(() => new RedisStore({ client: client as never }));
    expect(unconnected).toBeInstanceOf(SluiceConfigError);
    expect((unconnected as SluiceConfigError).option).toBe('client');
    expect(unconnected?.message).toContain(`${kind} that is not connected`);
    expect(unconnected?.message).toContain('await client.connect()');
    expectNoSecret(unconnected);
  });
});

describe('a node-redis client must be connected (else every process limits on its own memory)', () => {
  const url = 'redis://127.0.0.1:1';
  it.each([
    ['node-redis 6', () => createClient({ url, socket: { reconnectStrategy: false } })],
    ['node-redis 5', () => createClient5({ url, socket: { reconnectStrategy: false } })],
  ])(
    '%s: refused before connect(), taken once connect() was called, refused after close',
    async (_, make) => {
      const client = make();
      client.on('error', () => undefined);
      expect(() => new RedisStore({ client: client as never })).toThrow(/not connected/);
      // connect() called, not yet awaited (the client is connecting): taken.
      const connecting = client.connect().catch(() => undefined);
      expect(new RedisStore({ client: client as never }).hashTag).toBe(false);
      await connecting;
      // The connection failed and the client closed: refused again.
      expect(client.isOpen).toBe(false);
      expect(() => new RedisStore({ client: client as never })).toThrow(/await client.connect\(\)/);
    },
  );
});
