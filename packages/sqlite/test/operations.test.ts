// SqliteStore#operations (docs/guide/operating.md): operator entries in two tables of the shared file and
// a version per limiter prefix. Two stores on two connections to one file stand for two
// processes (each has its own snapshot; the file is all they share): a change made through A
// reaches A's limiters at once and B's when B next reads the version (every syncMs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  gcra,
  LimitOperations,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
} from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { describeWildcardSubjects } from '@sluice/test-kit';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/index.js';
import { nodeSqlite } from './node-sqlite.js';

const SYNC_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `check` to hold, polling; fails after `ms` (a bound far past what is expected). */
async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await sleep(5);
  }
}

function view(ip: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {} };
}

let dir: string;
const opened: { close(): void }[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-ops-'));
});

afterAll(() => {
  for (const db of opened) {
    try {
      db.close();
    } catch {
      // already closed
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const DatabaseSync = nodeSqlite();
const drivers: [string, (file: string) => object][] = [
  ['better-sqlite3', (file) => new Database(file)],
];
if (DatabaseSync !== undefined) drivers.push(['node:sqlite', (file) => new DatabaseSync(file)]);

describe.each(drivers)('operations across two connections to one file (%s)', (name, open) => {
  let a: SqliteStore;
  let b: SqliteStore;
  let opsA: LimitOperations;
  let limiterA: RateLimiter;
  let limiterB: RateLimiter;
  let httpB: HttpLimiter;

  beforeAll(() => {
    const file = join(dir, `${name.replace(/\W/g, '')}.db`);
    const store = (database: object) => {
      opened.push(database as { close(): void });
      return new SqliteStore({
        database: database as never,
        sweepIntervalMs: 0,
        operations: { syncMs: SYNC_MS },
      });
    };
    a = store(open(file));
    b = store(open(file));
    opsA = new LimitOperations({ store: a });
    const algorithm = gcra({ rate: 1_000_000, period: '1s' });
    limiterA = new RateLimiter({ algorithm, store: a });
    limiterB = new RateLimiter({ algorithm, store: b });
    httpB = new HttpLimiter({ store: b, limit: '1000000/1s' });
    // B's first decision starts its snapshot (its version checks).
    void limiterB.consume('warm');
  });

  afterAll(async () => {
    for (const entry of await opsA.list()) await opsA.remove(entry);
    a.close();
    b.close();
  });

  const denied = async (limiter: RateLimiter, key: string) => !(await limiter.consume(key)).allowed;

  it("a ban made in A denies A's next decision at once and B's within syncMs; an unban the same", async () => {
    expect(await denied(limiterB, 'k1')).toBe(false);
    await opsA.ban({ key: 'k1' }, { for: '1h' });
    expect(await denied(limiterA, 'k1')).toBe(true);
    await until(() => denied(limiterB, 'k1'));
    const d = await limiterB.consume('k1');
    expect(d.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(await denied(limiterB, 'k2')).toBe(false);
    await opsA.unban({ key: 'k1' });
    expect(await denied(limiterA, 'k1')).toBe(false);
    await until(async () => !(await denied(limiterB, 'k1')));
  });

  it('allow and deny CIDRs (IPv4 and IPv6) reach B; allow wins over deny', async () => {
    const verdict = (ip: string) => httpB.check(view(ip)) as { statusCode: number } | undefined;
    await opsA.deny('203.0.113.0/24');
    await opsA.deny('2001:db8::/32');
    await until(() => verdict('203.0.113.9')?.statusCode === 403);
    await until(() => verdict('2001:db8:1::7')?.statusCode === 403);
    expect(verdict('::ffff:203.0.113.10')?.statusCode).toBe(403);
    expect(verdict('198.51.100.1')?.statusCode).toBe(200);
    await opsA.allow('203.0.113.128/25');
    // An allowed subject is let through as a skipped request is: no verdict at all.
    await until(() => verdict('203.0.113.200') === undefined);
    expect(verdict('203.0.113.9')?.statusCode).toBe(403);
    await opsA.remove('deny:cidr:203.0.113.0/24');
    await opsA.remove('deny:cidr:2001:db8::/32');
    await opsA.remove('allow:cidr:203.0.113.128/25');
    await until(() => verdict('203.0.113.9')?.statusCode === 200);
  });

  it("an override replaces a subject's limit in B", async () => {
    const limit = async () => (await limiterB.consume('tenant')).limit;
    expect(await limit()).toBe(1_000_000);
    await opsA.override({ key: 'tenant' }, '5/1m', { for: '1h' });
    await until(async () => (await limit()) === 5);
    await opsA.remove('override:key:tenant');
    await until(async () => (await limit()) === 1_000_000);
  });

  it("a wildcard ban made in A (key tenant:*:bot) denies B's matching keys only", async () => {
    await opsA.ban({ key: 'tenant:*:bot' }, { for: '1h' });
    await until(() => denied(limiterB, 'tenant:1:bot'));
    expect(await denied(limiterB, 'tenant:1:app')).toBe(false);
    await opsA.unban({ key: 'tenant:*:bot' });
    await until(async () => !(await denied(limiterB, 'tenant:1:bot')));
  });

  describe('wildcard subjects, SqliteStore', () => {
    describeWildcardSubjects(() => a);
  });
});

describe('entries expire by themselves', () => {
  it('an entry past its end is not loaded, no limiter obeys it, and the next write drops its row', async () => {
    const database = new Database(join(dir, 'expiry.db'));
    opened.push(database);
    const store = new SqliteStore({ database, sweepIntervalMs: 0 });
    // Written by a clock an hour behind: its end (one minute later) is long past.
    const past = new LimitOperations({ store, clock: () => Date.now() - 3_600_000 });
    await past.ban({ key: 'old' }, { for: '1m' });
    const ops = new LimitOperations({ store });
    expect(await ops.list()).toEqual([]);
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 100, period: '1s' }), store });
    expect((await limiter.consume('old')).allowed).toBe(true);
    const rows = () =>
      (database.prepare('SELECT count(*) AS n FROM sluice_limits_ops').get() as { n: number }).n;
    expect(rows()).toBe(1);
    await ops.ban({ key: 'new' }, { for: '1h' });
    expect(rows()).toBe(1);
    store.close();
  });

  it("a limiter drops a ban when its own clock passes the ban's end", async () => {
    const database = new Database(join(dir, 'expiry-clock.db'));
    opened.push(database);
    const store = new SqliteStore({ database, sweepIntervalMs: 0 });
    let offset = 0;
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1s' }),
      store,
      clock: () => Date.now() + offset,
    });
    await new LimitOperations({ store }).ban({ key: 'k' }, { for: '10s' });
    expect((await limiter.consume('k')).allowed).toBe(false);
    offset = 11_000;
    expect((await limiter.consume('k')).allowed).toBe(true);
    store.close();
  });
});

describe('options', () => {
  it('operations.syncMs is checked at construction', () => {
    const database = new Database(join(dir, 'options.db'));
    opened.push(database);
    const make = (operations: unknown) => () =>
      new SqliteStore({ database, sweepIntervalMs: 0, operations: operations as never });
    expect(make({ syncMs: 0 })).toThrow(SluiceConfigError);
    expect(make({ syncMs: -1 })).toThrow(/operations\.syncMs/);
    expect(make({ every: 1 })).toThrow(/every/);
    expect(make({ syncMs: '200ms' })().operations?.syncMs).toBe(200);
  });
});
