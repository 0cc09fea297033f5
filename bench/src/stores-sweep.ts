// `pnpm bench:stores-sweep`: `--keys` distinct keys over `--minutes` simulated minutes on PostgresStore,
// a sweep after each minute; passes when the rows never exceed the keys active in the last 2 minutes.
import { fixedWindow } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { createPostgresDatabase, EPOCH } from '@sluice/test-kit';
import pg from 'pg';
import { parseCommand } from './cli/args.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:stores-sweep -- [options]',
  summary:
    "PostgresStore's sweeper under a stream of distinct keys: rows after each sweep against the keys active in the last 2 minutes.",
  options: {
    keys: { type: 'number', default: 1_000_000, help: 'distinct keys in all' },
    minutes: { type: 'number', default: 10, help: 'simulated minutes they arrive over' },
    inflight: { type: 'number', default: 2048, help: 'decisions in flight' },
  },
});

async function main(): Promise<void> {
  const db = await createPostgresDatabase();
  const pool = new pg.Pool({ ...db.config, max: 8 });
  let failed = false;
  try {
    const store = new PostgresStore({
      client: pool,
      clock: 'client',
      sweepIntervalMs: 0,
      sweepBatch: 10_000,
      timeoutMs: 60_000,
    });
    await store.migrate();
    const algorithm = fixedWindow({ limit: 10, window: '1m' });
    const perMinute = Math.ceil(args.keys / args.minutes);
    let next = 0;
    const started = performance.now();
    for (let minute = 0; minute < args.minutes; minute++) {
      const now = EPOCH + minute * 60_000;
      const end = Math.min(args.keys, next + perMinute);
      const t0 = performance.now();
      const worker = async () => {
        while (next < end) {
          const k = next++;
          await store.consume(`k${k}`, algorithm, 1, now + (k % 60_000));
        }
      };
      await Promise.all(Array.from({ length: args.inflight }, worker));
      const decideMs = performance.now() - t0;
      const t1 = performance.now();
      const swept = await store.sweep(1000);
      const sweepMs = performance.now() - t1;
      const rows = Number((await pool.query('SELECT count(*) FROM sluice_limits')).rows[0].count);
      const active = Math.min(2, minute + 1) * perMinute;
      const ok = rows <= active;
      failed ||= !ok;
      console.log(
        JSON.stringify({
          minute: minute + 1,
          keysSoFar: end,
          decisionsPerSecond: Math.round(((end - (end - perMinute)) * 1000) / decideMs),
          swept,
          sweepMs: Math.round(sweepMs),
          rows,
          activeLast2Minutes: active,
          ok,
        }),
      );
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${args.keys} keys in ${seconds.toFixed(0)} s: ${failed ? 'FAILED: rows above the active keys' : 'rows <= keys active in the last 2 minutes after every sweep'}`,
    );
    process.exitCode = failed ? 1 : 0;
  } finally {
    await pool.end();
    await db.drop();
  }
}

await main();
