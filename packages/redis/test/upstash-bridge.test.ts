// test-kit's Upstash REST bridge (upstash-bridge.ts) answers @upstash/redis as the client
// expects, on the paths the store does not use too: single commands (POST /), transactions
// (POST /multi-exec), base64 and plain responses, the Bearer token, and its request counts;
// and what the fault matrix needs of it: @upstash/ratelimit's scripts (their shebang flag
// `allow-key-locking`, which redis-server 7.0 rejects) and a new connection after the old closed.
import { createHash } from 'node:crypto';
import {
  type RedisProcess,
  startRedis,
  startUpstashBridge,
  type UpstashBridge,
} from '@sluice/test-kit';
import { Redis } from '@upstash/redis';

let server: RedisProcess;
let bridge: UpstashBridge;

beforeAll(async () => {
  server = await startRedis();
  bridge = await startUpstashBridge(server.port);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

const client = (options: { responseEncoding?: false; token?: string } = {}) =>
  new Redis({
    url: bridge.url,
    token: options.token ?? bridge.token,
    retry: false,
    enableAutoPipelining: false,
    ...options,
  });

it.each([
  { encoding: 'base64', options: {} },
  { encoding: 'plain', options: { responseEncoding: false as const } },
])(
  'single commands on POST /, $encoding responses: strings (UTF-8) round-trip, integers stay numbers, nil is null',
  async ({ options }) => {
    const redis = client(options);
    const key = `bridge:${Math.random()}`;
    bridge.resetCounts();
    expect(await redis.set(key, 'héllo ✓ 🦀')).toBe('OK');
    expect(await redis.get(key)).toBe('héllo ✓ 🦀');
    expect(await redis.incr(`${key}:n`)).toBe(1);
    expect(await redis.get(`${key}:missing`)).toBeNull();
    expect(bridge.requests).toMatchObject({ total: 4, single: 4, pipeline: 0 });
    // The value is stored as the client sent it.
    expect((await server.cli('GET', key)).trim()).toBe('héllo ✓ 🦀');
  },
);

it('a transaction on POST /multi-exec runs atomically and answers each command', async () => {
  const redis = client();
  const key = `bridge:tx:${Math.random()}`;
  bridge.resetCounts();
  const replies = await redis.multi().incr(key).incrby(key, 5).get(key).exec();
  expect(replies).toEqual([1, 6, 6]);
  expect(bridge.requests).toMatchObject({ total: 1, multiExec: 1 });
});

it('a pipeline answers each command, errors apart (keepErrors)', async () => {
  const redis = client();
  const key = `bridge:p:${Math.random()}`;
  await redis.set(key, 'text');
  bridge.resetCounts();
  const replies = await redis.pipeline().incr(`${key}:n`).incr(key).exec({ keepErrors: true });
  expect(replies[0]).toEqual({ result: 1, error: undefined });
  expect(replies[1]!.error).toMatch(/^ERR value is not an integer/);
  expect(bridge.requests).toMatchObject({ total: 1, pipeline: 1 });
  expect(bridge.commands).toBe(2);
});

it('a wrong token is refused (401) and runs nothing', async () => {
  const key = `bridge:denied:${Math.random()}`;
  await expect(client({ token: 'wrong' }).set(key, '1')).rejects.toThrow(/Unauthorized/);
  expect((await server.cli('EXISTS', key)).trim()).toBe('0');
});

it("a script flagged allow-key-locking runs by EVAL, then by EVALSHA of the script's own SHA1", async () => {
  const redis = client();
  const key = `bridge:lock:${Math.random()}`;
  const script = "#!lua flags=allow-key-locking\nreturn redis.call('INCR', KEYS[1])";
  const sha = createHash('sha1').update(script).digest('hex');
  expect(await redis.eval(script, [key], [])).toBe(1);
  expect(await redis.evalsha(sha, [key], [])).toBe(2);
  expect((await server.cli('GET', key)).trim()).toBe('2');
});

it('a connection to redis-server that closed is replaced at the next request', async () => {
  const redis = client();
  const key = `bridge:reconnect:${Math.random()}`;
  expect(await redis.incr(key)).toBe(1);
  await server.cli('CLIENT', 'KILL', 'TYPE', 'normal');
  // The request that finds the old connection closing fails (it settles only when the close is
  // seen, which marks the connection gone); the next one goes on a new connection.
  const first = await redis.incr(key).catch(() => undefined);
  expect(await redis.incr(key)).toBe(first === undefined ? 2 : 3);
});
