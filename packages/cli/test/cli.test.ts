// The sluice command run as a user runs it: a child process (run-sluice.ts) against a
// redis-server of the test's own. What one run writes, the next
// run (and a RedisStore's operations) reads; exit codes are the documented ones; no output
// ever holds the password of the Redis URL.
import { RedisStore } from '@sluice/redis';
import { freePort, type RedisProcess, startCluster, startRedis } from '@sluice/test-kit';
import { Cluster, Redis } from 'ioredis';
import { cleanOf, type Run, sluice } from './run-sluice.js';

const PASSWORD = 'pw-Zq8v1x7sEcReT';

let server: RedisProcess;
let url: string;
let client: Redis;

beforeAll(async () => {
  server = await startRedis();
  // After start: the fixture's readiness check is an unauthenticated PING.
  await server.cli('CONFIG', 'SET', 'requirepass', PASSWORD);
  url = `redis://:${PASSWORD}@127.0.0.1:${server.port}`;
  client = new Redis(url);
}, 30_000);

afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

/** Asserts that no output of `run` holds the password. */
const clean = (run: Run): Run => cleanOf(run, PASSWORD);

describe('sluice', () => {
  jest.setTimeout(120_000);

  it('--help documents the commands and the exit codes, and exits 0', async () => {
    const run = clean(await sluice(['--help']));
    expect(run.code).toBe(0);
    for (const word of ['ban', 'unban', 'allow', 'deny', 'override', 'list', 'inspect', 'top']) {
      expect(run.stdout).toContain(`  ${word}`);
    }
    expect(run.stdout).toMatch(/Exit codes\n {2}0 .*\n {2}1 .*\n(.*\n)* {2}2 /);
  });

  it('--version prints the package version', async () => {
    const run = await sluice(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(require('../package.json').version);
  });

  it('ban, list, inspect and unban act on the entries every process reads', async () => {
    const env = { SLUICE_REDIS_URL: url };
    const ban = clean(
      await sluice(['ban', 'ip', '203.0.113.7', '--for', '1h', '--reason', 'abuse', '--json'], env),
    );
    expect(ban.code).toBe(0);
    const entry = JSON.parse(ban.stdout);
    expect(entry).toMatchObject({ kind: 'ban', subject: { ip: '203.0.113.7' }, reason: 'abuse' });
    expect(entry.until - entry.at).toBe(3_600_000);
    // What an application's store on this Redis loads.
    const store = new RedisStore({ client });
    const loaded = await store.operations.load('sl');
    expect(loaded.entries).toEqual([entry]);

    const list = clean(await sluice(['list'], env));
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('ban:ip:203.0.113.7 until ');
    expect(list.stdout).toContain('(reason: abuse)');

    const inspect = clean(await sluice(['inspect', 'ip', '203.0.113.7', '--json'], env));
    expect(inspect.code).toBe(0);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ blocked: true, blockedUntil: entry.until });

    const unban = clean(await sluice(['unban', 'ip', '203.0.113.7'], env));
    expect(unban.code).toBe(0);
    expect((await store.operations.load('sl')).entries).toEqual([]);
  });

  it('allow, deny and override write their entries under --prefix; remove takes an id', async () => {
    const base = ['--redis', url, '--prefix', 'api', '--json'];
    const allow = clean(await sluice(['allow', 'cidr', '10.0.0.0/8', ...base]));
    expect(allow.code).toBe(0);
    expect(JSON.parse(allow.stdout)).toMatchObject({ kind: 'allow', until: null });
    const deny = clean(await sluice(['deny', 'cidr', '2001:db8::/32', '--for', '2h', ...base]));
    expect(deny.code).toBe(0);
    const over = clean(await sluice(['override', 'user', '42', '100/1m', '--for', '30d', ...base]));
    expect(over.code).toBe(0);
    expect(JSON.parse(over.stdout)).toMatchObject({ kind: 'override', limit: '100/1m' });
    const store = new RedisStore({ client });
    const ids = (await store.operations.load('api')).entries.map((e) => e.id).sort();
    expect(ids).toHaveLength(3);
    expect((await store.operations.load('sl')).entries).toEqual([]);
    const removed = clean(await sluice(['remove', JSON.parse(allow.stdout).id, ...base]));
    expect(removed.code).toBe(0);
    expect((await store.operations.load('api')).entries).toHaveLength(2);
  });

  it('exits 2 on usage errors, naming what is wrong, without the password', async () => {
    const env = { SLUICE_REDIS_URL: url };
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command "frobnicate"/],
      [[`redis://:${PASSWORD}@host`], /unknown command \(not shown\)/],
      [['ban', 'ip', '1.2.3.4'], /--for/],
      [['ban', 'ip'], /ban takes <subject> <value>/],
      [['ban', 'planet', 'mars', '--for', '1h'], /unknown subject "planet"/],
      [['allow', 'cidr', '10.0.0.0/99'], /cidr|CIDR/],
      [['override', 'user', '42', 'lots', '--for', '1d'], /limit/],
      [['list', '--bogus'], /bogus/],
      [['list', '--for', '1h'], /--for does not apply to list/],
    ];
    for (const [args, message] of cases) {
      const run = clean(await sluice(args, env));
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    }
    // No URL at all.
    const none = clean(await sluice(['list']));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('SLUICE_REDIS_URL');
  });

  it('exits 1 when Redis is unreachable or refuses the password, without printing it', async () => {
    const port = await freePort();
    const down = clean(
      await sluice([
        'list',
        '--redis',
        `redis://:${PASSWORD}@127.0.0.1:${port}`,
        '--timeout',
        '2000',
      ]),
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`127.0.0.1:${port}`);
    const wrong = `redis://:${PASSWORD}x@127.0.0.1:${server.port}`;
    const refused = await sluice(['ban', 'ip', '1.2.3.4', '--for', '1h', '--redis', wrong]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain(`${PASSWORD}x`);
    expect(refused.stderr).not.toContain(PASSWORD);
    // Percent-encoded in the URL, printed decoded by no one either.
    const encoded = `redis://:${encodeURIComponent(`${PASSWORD}/+`)}@127.0.0.1:${port}`;
    const run = await sluice(['list', '--json'], { SLUICE_REDIS_URL: encoded });
    expect(run.code).toBe(1);
    expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD);
  });

  it('top says it has nothing to aggregate (per-process counts) and exits 1', async () => {
    // No Redis needed: there is nothing in it to read.
    const run = clean(await sluice(['top', '--json']));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ available: false });
    expect(JSON.parse(run.stdout).reason).toContain('OpenTelemetry');
  });
});

describe('sluice --cluster', () => {
  it('writes through one node of a Redis Cluster what a Cluster store loads', async () => {
    const cluster = await startCluster();
    const client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    try {
      const url = `redis://127.0.0.1:${cluster.nodes[1]!.port}`;
      const run = clean(
        await sluice(['ban', 'user', '42', '--for', '1h', '--cluster', '--redis', url]),
      );
      expect(run.code).toBe(0);
      const store = new RedisStore({ client });
      expect((await store.operations.load('sl')).entries).toEqual([
        expect.objectContaining({ kind: 'ban', subject: { user: '42' } }),
      ]);
      await store.close();
    } finally {
      client.disconnect();
      await cluster.stop();
    }
  }, 120_000);
});
