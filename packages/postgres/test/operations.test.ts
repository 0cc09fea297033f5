// PostgresStore#operations (docs/guide/operating.md): the entries of a limiter prefix in two tables that
// migrate() creates, a version bumped by each write and sent with NOTIFY, heard by every
// other store on the database through a LISTEN connection of its own, and a version check
// every syncMs for what that connection missed. Two stores on one database stand for two
// processes (each has its own snapshot); operations-processes.test.ts runs two processes.
import {
  gcra,
  LimitOperations,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
} from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import {
  createPostgresDatabase,
  describeWildcardSubjects,
  type PostgresDatabase,
} from '@sluice/test-kit';
import pg from 'pg';
import postgres from 'postgres';
import { PostgresStore } from '../src/index.js';

const SYNC_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `check` to hold, polling; fails after `ms` (a bound far past what is expected). */
async function until(check: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`condition not met within ${ms} ms`);
    await sleep(5);
  }
}

function view(ip: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {} };
}

let db: PostgresDatabase;
let admin: pg.Pool;

beforeAll(async () => {
  db = await createPostgresDatabase();
  admin = new pg.Pool({ ...db.config, max: 2 });
  await new PostgresStore({ client: admin, sweepIntervalMs: 0 }).migrate();
}, 30_000);

afterAll(async () => {
  await admin?.end();
  await db?.drop();
}, 30_000);

/** Backends listening for the stores (pg: by application_name; postgres.js: by query). */
async function listeners(kind: 'pg' | 'postgres.js'): Promise<number[]> {
  const where = kind === 'pg' ? `application_name = 'sluice-listen'` : `query ILIKE 'listen %'`;
  const { rows } = await admin.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND ${where}`,
  );
  return rows.map((r: { pid: number }) => r.pid);
}

interface Side {
  store: PostgresStore;
  end(): Promise<void>;
}

function side(kind: 'pg' | 'postgres.js'): Side {
  const operations = { syncMs: SYNC_MS };
  if (kind === 'pg') {
    const pool = new pg.Pool({ ...db.config, max: 3 });
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, operations });
    return { store, end: () => pool.end() };
  }
  const sql = postgres(db.url, { max: 3, onnotice: () => {} });
  const store = new PostgresStore({ client: sql, sweepIntervalMs: 0, operations });
  return { store, end: () => sql.end({ timeout: 1 }) };
}

describe.each(['pg', 'postgres.js'] as const)('operations across two stores (%s)', (kind) => {
  let a: Side;
  let b: Side;
  let opsA: LimitOperations;
  let limiterB: RateLimiter;
  let httpB: HttpLimiter;

  beforeAll(async () => {
    a = side(kind);
    b = side(kind);
    opsA = new LimitOperations({ store: a.store });
    // A rate no test comes near: every denial is the operator's.
    limiterB = new RateLimiter({
      algorithm: gcra({ rate: 1_000_000, period: '1s' }),
      store: b.store,
    });
    httpB = new HttpLimiter({ store: b.store, limit: '1000000/1s' });
    // B's first decision starts its snapshot (load, LISTEN).
    await limiterB.consume('warm');
    await until(async () => (await listeners(kind)).length >= 1);
  }, 30_000);

  afterAll(async () => {
    for (const entry of (await opsA?.list()) ?? []) await opsA.remove(entry);
    await a?.store.close();
    await b?.store.close();
    await a?.end();
    await b?.end();
  });

  const denied = async (key: string) => !(await limiterB.consume(key)).allowed;

  it("a ban made in A denies B's decisions; the unban admits them again", async () => {
    expect(await denied('k1')).toBe(false);
    await opsA.ban({ key: 'k1' }, { for: '1h', reason: 'scraping' });
    await until(() => denied('k1'));
    const d = await limiterB.consume('k1');
    expect(d.allowed).toBe(false);
    expect(d.retryAfterMs).toBeGreaterThan(3_500_000);
    expect(d.retryAfterMs).toBeLessThanOrEqual(3_600_000);
    expect(await denied('k2')).toBe(false);
    await opsA.unban({ key: 'k1' });
    await until(async () => !(await denied('k1')));
  });

  it('allow and deny CIDRs (IPv4 and IPv6) reach B; allow wins over deny', async () => {
    const status = async (ip: string) => (await httpB.check(view(ip)))?.statusCode;
    // An allowed subject is let through as a skipped request is: no verdict at all.
    const allowed = async (ip: string) => (await httpB.check(view(ip))) === undefined;
    const admitted = async (ip: string) => (await httpB.check(view(ip)))?.allowed === true;
    await opsA.deny('203.0.113.0/24');
    await opsA.deny('2001:db8::/32');
    await until(async () => (await status('203.0.113.9')) === 403);
    await until(async () => (await status('2001:db8:1::7')) === 403);
    expect(await status('::ffff:203.0.113.10')).toBe(403);
    expect(await admitted('198.51.100.1')).toBe(true);
    await opsA.allow('203.0.113.128/25');
    await until(() => allowed('203.0.113.200'));
    expect(await status('203.0.113.9')).toBe(403);
    await opsA.remove('deny:cidr:203.0.113.0/24');
    await opsA.remove('deny:cidr:2001:db8::/32');
    await opsA.remove('allow:cidr:203.0.113.128/25');
    await until(() => admitted('203.0.113.9'));
    await until(() => admitted('2001:db8:1::7'));
  });

  it("an override replaces a subject's limit in B from its next decisions", async () => {
    expect((await limiterB.consume('tenant')).limit).toBe(1_000_000);
    await opsA.override({ key: 'tenant' }, '5/1m', { for: '1h' });
    await until(async () => (await limiterB.consume('tenant')).limit === 5);
    await opsA.remove('override:key:tenant');
    await until(async () => (await limiterB.consume('tenant')).limit === 1_000_000);
  });

  it("a wildcard ban made in A (key tenant:*:bot) denies B's matching keys only", async () => {
    await opsA.ban({ key: 'tenant:*:bot' }, { for: '1h' });
    await until(() => denied('tenant:1:bot'));
    expect(await denied('tenant:1:app')).toBe(false);
    await opsA.unban({ key: 'tenant:*:bot' });
    await until(async () => !(await denied('tenant:1:bot')));
  });

  describe('wildcard subjects, PostgresStore', () => {
    describeWildcardSubjects(() => a.store);
  });

  // Whichever comes first brings the change: the re-check after the reconnect, or the
  // version check every syncMs (operations-processes.test.ts times the latter alone).
  it('with the LISTEN connection killed, B catches up within syncMs and listens again', async () => {
    const before = await listeners(kind);
    expect(before.length).toBeGreaterThanOrEqual(1);
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
    await opsA.ban({ key: 'cut' }, { for: '1h' });
    // Bound: syncMs and a margin for a loaded machine.
    await until(() => denied('cut'), SYNC_MS + 2000);
    // New LISTEN connections (the old ones are gone), and notifications flow on them again.
    await until(async () => {
      const now = await listeners(kind);
      return now.length >= 1 && now.every((pid) => !before.includes(pid));
    }, 10_000);
    await opsA.unban({ key: 'cut' });
    await until(async () => !(await denied('cut')));
  }, 20_000);
});

describe('entries expire by themselves', () => {
  it('an entry past its end is not loaded, no limiter obeys it, and the next write drops its row', async () => {
    const pool = new pg.Pool({ ...db.config, max: 2 });
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    // Written by a clock an hour behind: its end (one minute later) is long past.
    const past = new LimitOperations({ store, clock: () => Date.now() - 3_600_000, prefix: 'exp' });
    await past.ban({ key: 'old' }, { for: '1m' });
    const ops = new LimitOperations({ store, prefix: 'exp' });
    expect(await ops.list()).toEqual([]);
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1s' }),
      store,
      prefix: 'exp',
    });
    expect((await limiter.consume('old')).allowed).toBe(true);
    const rows = async () =>
      Number(
        (await admin.query(`SELECT count(*) FROM sluice_limits_ops WHERE prefix = 'exp'`)).rows[0]
          .count,
      );
    expect(await rows()).toBe(1);
    await ops.ban({ key: 'new' }, { for: '1h' });
    expect(await rows()).toBe(1);
    expect((await ops.list()).map((e) => e.id)).toEqual(['ban:key:new']);
    await store.close();
    await pool.end();
  });

  it("a limiter drops a ban when its own clock passes the ban's end", async () => {
    const pool = new pg.Pool({ ...db.config, max: 2 });
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    let offset = 0;
    const ops = new LimitOperations({ store, prefix: 'exp2' });
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1s' }),
      store,
      prefix: 'exp2',
      clock: () => Date.now() + offset,
    });
    await ops.ban({ key: 'k' }, { for: '10s' });
    expect((await limiter.consume('k')).allowed).toBe(false);
    offset = 11_000;
    expect((await limiter.consume('k')).allowed).toBe(true);
    await store.close();
    await pool.end();
  });
});

describe('no statement per decision', () => {
  it('200 decisions send the same statements with 23 entries in force as with none', async () => {
    const pool = new pg.Pool({ ...db.config, max: 2 });
    // timeoutMs of 30 s: the test counts statements, not time (a reply later than the 500 ms
    // default, beside the browser test on a clean-clone CI run, fell to the insurance store
    // and 16 statements were counted for 200 decisions).
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0, timeoutMs: 30_000 });
    const prefix = 'count';
    // syncMs of 10 minutes: no version check inside the count.
    const ops = new LimitOperations({ store, prefix, syncMs: '10m' });
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 1_000_000, period: '1s' }),
      store,
      prefix,
    });
    let calls = 0;
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof query>) => {
      calls++;
      return query(...args);
    }) as typeof pool.query;
    // Until no statement for 300 ms: the operator entries' loads run in the background.
    const quiet = async () => {
      for (let seen = -1; seen !== calls; ) {
        seen = calls;
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    await limiter.consume('warm');
    // The first load, counted from when it is done, or it lands in the first run (202 on one
    // CI run).
    await quiet();
    // One decision in flight at a time: one statement each, both runs.
    const run = async (tag: string) => {
      calls = 0;
      for (let i = 0; i < 200; i++) {
        if (!(await limiter.consume(`${tag}:${i % 10}`)).allowed) throw new Error('denied');
      }
      return calls;
    };
    try {
      const off = await run('off');
      await ops.allow({ cidr: '10.0.0.0/8' });
      await ops.override({ key: 'tenant' }, '100/1m', { for: '1h' });
      for (let i = 0; i < 21; i++) await ops.ban({ key: `other:${i}` }, { for: '1h' });
      // The last one written is in force here: every load is done.
      await until(async () => !(await limiter.consume('other:20')).allowed);
      // A notification of an earlier write can still start a load after that (one that came
      // while a load was in flight: 202 on another CI run).
      await quiet();
      const on = await run('on');
      expect(off).toBe(200);
      expect(on).toBe(off);
      expect((await limiter.consume('tenant')).limit).toBe(100);
    } finally {
      await store.close();
      await pool.end();
    }
  });
});

describe('connections and options', () => {
  it('close() ends the LISTEN connection the store opened, never the client it was given', async () => {
    const pool = new pg.Pool({ ...db.config, max: 2 });
    const store = new PostgresStore({ client: pool, sweepIntervalMs: 0 });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 100, period: '1s' }), store });
    const before = (await listeners('pg')).length;
    await limiter.consume('x');
    await until(async () => (await listeners('pg')).length > before);
    await store.close();
    await until(async () => (await listeners('pg')).length === before);
    expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    await pool.end();
  });

  it('a pg Client (not a Pool) gets a LISTEN connection of its own too', async () => {
    const clientA = new pg.Client(db.config);
    const clientB = new pg.Client(db.config);
    await clientA.connect();
    await clientB.connect();
    const a = new PostgresStore({ client: clientA, sweepIntervalMs: 0 });
    const b = new PostgresStore({ client: clientB, sweepIntervalMs: 0 });
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1s' }),
      store: b,
      prefix: 'client',
    });
    expect((await limiter.consume('c')).allowed).toBe(true);
    await new LimitOperations({ store: a, prefix: 'client' }).ban({ key: 'c' }, { for: '1m' });
    await until(async () => !(await limiter.consume('c')).allowed);
    await a.close();
    await b.close();
    await clientA.end();
    await clientB.end();
  });

  it('migrate() is idempotent, and two at once do not race', async () => {
    const store = new PostgresStore({ client: admin, sweepIntervalMs: 0 });
    await Promise.all([store.migrate(), store.migrate()]);
    const ops = new LimitOperations({ store, prefix: 'mig' });
    await ops.ban({ user: 7 }, { for: '1m' });
    await store.migrate();
    expect((await ops.list()).map((e) => e.id)).toEqual(['ban:user:7']);
    await store.close();
  });

  it('option operations.syncMs is checked at construction', () => {
    const make = (operations: unknown) => () =>
      new PostgresStore({ client: admin, operations: operations as never });
    expect(make({ syncMs: 0 })).toThrow(SluiceConfigError);
    expect(make({ syncMs: 0 })).toThrow(/operations\.syncMs/);
    expect(make({ sync: 1 })).toThrow(/sync/);
    expect(make('1s')).toThrow(/operations/);
    expect(make({ syncMs: '1s' })().operations.syncMs).toBe(1000);
  });
});
