// The sluice command on PostgreSQL (a database of the test's own, on the local server) and
// SQLite (a temp file): what the CLI writes, a RateLimiter on that store obeys; what an app's
// LimitOperations writes, the CLI lists; a wildcard subject as quoted in a shell; --json
// shapes and exit codes as on Redis; no output ever holds the password of the PostgreSQL
// URL (docs/reference/cli.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gcra, LimitOperations, RateLimiter, type Store } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { SqliteStore } from '@sluice/sqlite';
import { createPostgresDatabase, freePort, type PostgresDatabase } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cleanOf, type Run, sluice, until } from './run-sluice.js';

// Trust authentication accepts any password: the URL carries one all the same, so every
// message the command prints is checked against it.
const PASSWORD = 'pg-Wq7s3cR3t-x9';
const SYNC_MS = 100;

let db: PostgresDatabase;
let pool: pg.Pool;
let pgUrl: string;
let dir: string;
let file: string;
let sqlite: Database.Database;
const clean = (run: Run) => cleanOf(run, PASSWORD, encodeURIComponent(PASSWORD));

beforeAll(async () => {
  db = await createPostgresDatabase();
  pool = new pg.Pool({ ...db.config, max: 3 });
  await new PostgresStore({ client: pool, sweepIntervalMs: 0 }).migrate();
  const { user, host, port } = db.config;
  pgUrl = `postgres://${user}:${PASSWORD}@${host}:${port}/${db.name}`;
  dir = mkdtempSync(join(tmpdir(), 'sluice-cli-'));
  file = join(dir, 'limits.db');
  // The app's store creates its tables in the file.
  sqlite = new Database(file);
}, 30_000);

afterAll(async () => {
  sqlite?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  await pool?.end();
  await db?.drop();
}, 30_000);

interface Side {
  name: string;
  /** The app's store on the same database or file. */
  store: () => Store;
  /** The store flag and its value, and the variable that gives it instead. */
  flag: () => string[];
  env: () => Record<string, string>;
}

const SIDES: Side[] = [
  {
    name: 'postgres',
    store: () =>
      new PostgresStore({ client: pool, sweepIntervalMs: 0, operations: { syncMs: SYNC_MS } }),
    flag: () => ['--postgres', pgUrl],
    env: () => ({ SLUICE_POSTGRES_URL: pgUrl }),
  },
  {
    name: 'sqlite',
    store: () => new SqliteStore({ database: sqlite, operations: { syncMs: SYNC_MS } }),
    flag: () => ['--sqlite', file],
    env: () => ({ SLUICE_SQLITE_PATH: file }),
  },
];

describe.each(SIDES)('sluice on $name', (side) => {
  jest.setTimeout(120_000);
  let store: Store;
  let ops: LimitOperations;
  let limiter: RateLimiter;

  beforeAll(async () => {
    store = side.store();
    ops = new LimitOperations({ store });
    // A rate no test comes near: every denial is the operator's.
    limiter = new RateLimiter({ algorithm: gcra({ rate: 1_000_000, period: '1s' }), store });
    await limiter.consume('warm');
  });

  afterAll(async () => {
    for (const entry of (await ops?.list()) ?? []) await ops.remove(entry);
    await (store as { close?: () => unknown } | undefined)?.close?.();
  });

  const denied = async (key: string) => !(await limiter.consume(key)).allowed;

  it('a ban the CLI writes, a limiter on the store obeys; the unban admits again', async () => {
    expect(await denied('k1')).toBe(false);
    const ban = clean(
      await sluice(['ban', 'key', 'k1', '--for', '1h', '--reason', 'abuse', '--json'], side.env()),
    );
    expect(ban).toMatchObject({ code: 0, stderr: '' });
    const entry = JSON.parse(ban.stdout);
    expect(entry).toMatchObject({ id: 'ban:key:k1', kind: 'ban', subject: { key: 'k1' } });
    expect(entry).toMatchObject({ reason: 'abuse' });
    expect(entry.until - entry.at).toBe(3_600_000);
    await until(() => denied('k1'));
    const decision = await limiter.consume('k1');
    expect(decision.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(await denied('k2')).toBe(false);

    const unban = clean(await sluice(['unban', 'key', 'k1', ...side.flag()]));
    expect(unban.code).toBe(0);
    expect(unban.stdout).toContain('unbanned key k1');
    await until(async () => !(await denied('k1')));
  });

  it('a wildcard key the CLI bans (quoted for the shell) denies the matching keys only', async () => {
    // execFile passes the argument as is, as a shell does with 'tenant:*:bot' quoted.
    const ban = clean(
      await sluice(['ban', 'key', 'tenant:*:bot', '--for', '1h', '--json'], side.env()),
    );
    expect(ban).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(ban.stdout)).toMatchObject({ id: 'ban:key:tenant:*:bot' });
    await until(() => denied('tenant:3:bot'));
    expect(await denied('tenant:3:app')).toBe(false);
    // A bad pattern is a usage error naming the field, never echoing the pattern.
    const bad = clean(await sluice(['ban', 'user', 'vip**x', '--for', '1h', ...side.flag()]));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"subject.user"');
    expect(bad.stderr).not.toContain('vip**x');
    const unban = clean(await sluice(['unban', 'key', 'tenant:*:bot', ...side.flag()]));
    expect(unban.code).toBe(0);
    await until(async () => !(await denied('tenant:3:bot')));
  });

  it("what the app's LimitOperations writes, list and inspect show (text and --json)", async () => {
    const deny = await ops.deny({ user: '7' }, { reason: 'fraud' });
    const over = await ops.override({ key: 'tenant' }, '100/1m', { for: '30d' });
    const list = clean(await sluice(['list', '--json'], side.env()));
    expect(list.code).toBe(0);
    // By precedence: the deny, then the override; exactly what the store holds.
    expect(JSON.parse(list.stdout)).toEqual([deny, over]);
    const text = clean(await sluice(['list', ...side.flag()]));
    expect(text.stdout).toContain('deny:user:7 until removed (reason: fraud)');
    expect(text.stdout).toContain(
      `override:key:tenant 100/1m until ${new Date(over.until!).toISOString()}`,
    );

    const inspect = clean(await sluice(['inspect', 'user', '7', '--json', ...side.flag()]));
    expect(inspect).toMatchObject({ code: 0, stderr: '' });
    const shown = JSON.parse(inspect.stdout);
    // A deny with no end blocks until removed: JSON has no Infinity, so `blocked` says it.
    expect(shown).toEqual({
      subject: { user: '7' },
      entries: [deny],
      blocked: true,
      blockedUntil: null,
      limits: [],
    });
    const told = clean(await sluice(['inspect', 'user', '7', ...side.flag()]));
    expect(told.stdout).toMatch(/^user 7: blocked until removed\n {2}deny:user:7 /);
    const free = clean(await sluice(['inspect', 'user', '8', '--json', ...side.flag()]));
    expect(JSON.parse(free.stdout)).toMatchObject({
      blocked: false,
      blockedUntil: null,
      entries: [],
    });
    await ops.remove(deny);
    await ops.remove(over);
  });

  it('allow, deny and override under --prefix; remove takes the id list shows', async () => {
    const base = ['--prefix', 'api', '--json', ...side.flag()];
    const allow = clean(await sluice(['allow', 'cidr', '10.0.0.0/8', ...base]));
    expect(allow.code).toBe(0);
    expect(JSON.parse(allow.stdout)).toMatchObject({ kind: 'allow', until: null });
    const deny = clean(await sluice(['deny', 'ip', '2001:db8::7', '--for', '2h', ...base]));
    // An IPv6 address is kept whole: each request matches it by its own group (ipv6Subnet).
    expect(JSON.parse(deny.stdout)).toMatchObject({
      kind: 'deny',
      subject: { ip: '2001:db8::7' },
    });
    const over = clean(
      await sluice(['override', 'user', '42', '100/1m', '--for', '30d', '--name', 'api', ...base]),
    );
    expect(JSON.parse(over.stdout)).toMatchObject({
      kind: 'override',
      limit: '100/1m',
      name: 'api',
    });
    const api = new LimitOperations({ store, prefix: 'api' });
    expect((await api.list()).map((e) => e.id).sort()).toEqual(
      [JSON.parse(allow.stdout).id, JSON.parse(deny.stdout).id, JSON.parse(over.stdout).id].sort(),
    );
    expect(await ops.list()).toEqual([]);
    const removed = clean(await sluice(['remove', JSON.parse(allow.stdout).id, ...base]));
    expect(JSON.parse(removed.stdout)).toEqual({ removed: 'allow:cidr:10.0.0.0/8' });
    expect(await api.list()).toHaveLength(2);
    for (const entry of await api.list()) await api.remove(entry);
  });

  it('top names the command and the store, and exits 1', async () => {
    const run = clean(await sluice(['top', '--json', ...side.flag()]));
    expect(run.code).toBe(1);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ available: false });
    expect(answer.reason).toMatch(/^sluice top: /);
    expect(answer.reason).toContain(side.name === 'postgres' ? 'PostgreSQL' : 'SQLite');
  });
});

describe('sluice on PostgreSQL and SQLite: errors', () => {
  jest.setTimeout(120_000);

  it('exits 2 on a usage error about the store, without the password', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['list', '--postgres', pgUrl, '--sqlite', file], {}, /--postgres and --sqlite/],
      [
        ['list'],
        { SLUICE_POSTGRES_URL: pgUrl, SLUICE_SQLITE_PATH: file },
        /SLUICE_POSTGRES_URL and SLUICE_SQLITE_PATH/,
      ],
      [['list', '--postgres', `mysql://u:${PASSWORD}@h/d`], {}, /--postgres takes a postgres:\/\//],
      [['list', '--sqlite', ':memory:'], {}, /--sqlite takes the path/],
      [['list', '--postgres', pgUrl, '--cluster'], {}, /--cluster does not apply to --postgres/],
      [['list', '--sqlite', file, '--schema', 'ops'], {}, /--schema does not apply to --sqlite/],
      [['list', '--postgres', pgUrl, '--store-prefix', 'x'], {}, /--store-prefix does not apply/],
      [['ban', 'ip', '1.2.3.4', '--postgres', pgUrl], {}, /--for/],
    ];
    for (const [args, env, message] of cases) {
      const run = clean(await sluice(args, env));
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    }
    const none = clean(await sluice(['list']));
    expect(none.code).toBe(2);
    for (const name of ['SLUICE_REDIS_URL', 'SLUICE_POSTGRES_URL', 'SLUICE_SQLITE_PATH']) {
      expect(none.stderr).toContain(name);
    }
  });

  it('a flag wins over the variables', async () => {
    const env = { SLUICE_REDIS_URL: 'redis://127.0.0.1:1', SLUICE_SQLITE_PATH: '/nonexistent' };
    const run = clean(await sluice(['list', '--json', '--postgres', pgUrl], env));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('exits 1 when PostgreSQL is unreachable, the database is missing or never migrated', async () => {
    const port = await freePort();
    const { user, host } = db.config;
    const down = clean(
      await sluice(['list', '--timeout', '2000'], {
        SLUICE_POSTGRES_URL: `postgres://${user}:${PASSWORD}@127.0.0.1:${port}/x`,
      }),
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`PostgreSQL at 127.0.0.1:${port} failed: cannot connect`);

    const missing = `postgresql://${user}:${encodeURIComponent(`${PASSWORD}/@`)}@${host}:${db.config.port}/${db.name}_none`;
    const run = cleanOf(await sluice(['list', '--postgres', missing]), PASSWORD, `${PASSWORD}/@`);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/does not exist/);

    // The password in the query, as pg reads it, is not printed either.
    const bare = await createPostgresDatabase();
    try {
      const url = `postgres://${user}@${host}:${db.config.port}/${bare.name}?password=${PASSWORD}`;
      const unmigrated = clean(
        await sluice(['ban', 'ip', '1.2.3.4', '--for', '1h', '--postgres', url]),
      );
      expect(unmigrated.code).toBe(1);
      expect(unmigrated.stderr).toContain('migrate()');
    } finally {
      await bare.drop();
    }
  });

  it('exits 1 on an SQLite file that is missing or has no store table, creating nothing', async () => {
    const missing = join(dir, 'typo.db');
    const run = clean(await sluice(['list', '--sqlite', missing]));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`SQLite file ${missing} failed: no such file`);
    const other = join(dir, 'other.db');
    new Database(other).close();
    const empty = clean(await sluice(['allow', 'ip', '1.2.3.4'], { SLUICE_SQLITE_PATH: other }));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no table sluice_limits');
    const tables = new Database(other, { readonly: true });
    try {
      expect(tables.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual(
        [],
      );
    } finally {
      tables.close();
    }
    const named = clean(await sluice(['list', '--sqlite', file, '--table', 'elsewhere']));
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('no table elsewhere');
  });
});
