import {
  createPostgresDatabase,
  describePackageExports,
  type PostgresDatabase,
} from '@sluice/test-kit';

let db: PostgresDatabase;

beforeAll(async () => {
  db = await createPostgresDatabase();
}, 30_000);

afterAll(async () => {
  await db?.drop();
}, 30_000);

// @sluice/postgres (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): migrate, then real decisions on
// a database this test created, through pg.
describePackageExports({
  name: 'postgres',
  functions: ['PostgresStore', 'StoreAbandonedError', 'StoreTimeoutError'],
  env: () => ({ SLUICE_PROBE_PG_URL: db.url }),
  probe: `
    const core = await load('@sluice/core');
    const pg = await load('pg');
    const Pool = pg.Pool ?? pg.default.Pool;
    const pool = new Pool({ connectionString: process.env.SLUICE_PROBE_PG_URL, max: 2 });
    try {
      const store = new pkg.PostgresStore({ client: pool, table: 'probe_' + format, sweepIntervalMs: 0 });
      await store.migrate();
      const limiter = new core.RateLimiter({
        algorithm: core.gcra({ rate: 1, period: '1 minute', burst: 1 }),
        store,
      });
      const first = await limiter.consume('probe');
      const second = await limiter.consume('probe');
      return { first, second };
    } finally {
      await pool.end();
    }
  `,
  check(result) {
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
  },
});
