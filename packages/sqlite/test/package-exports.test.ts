import { describePackageExports } from '@sluice/test-kit';

// @sluice/sqlite (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): synchronous decisions on an
// in-memory better-sqlite3 database.
describePackageExports({
  name: 'sqlite',
  functions: ['SqliteStore'],
  probe: `
    const core = await load('@sluice/core');
    const loaded = await load('better-sqlite3');
    const Database = loaded.default ?? loaded;
    const database = new Database(':memory:');
    try {
      const store = new pkg.SqliteStore({ database, sweepIntervalMs: 0 });
      const algorithm = core.gcra({ rate: 1, period: '1 minute', burst: 1 });
      const first = store.consume('probe', algorithm, 1, Date.now());
      const second = store.consume('probe', algorithm, 1, Date.now());
      return { first, second };
    } finally {
      database.close();
    }
  `,
  check(result) {
    expect(result.first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(result.second).toMatchObject({ allowed: false, remaining: 0 });
  },
});
