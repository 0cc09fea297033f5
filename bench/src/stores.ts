// `pnpm bench:stores`: sluice's PostgreSQL, SQLite and Redis stores beside their peers (cases/stores.ts)
// in one run, on a database and a redis-server of its own; interleaved rounds, medians.
import { createPostgresDatabase } from '@sluice/test-kit';
import { type Ready, STORE_SUBJECTS } from './cases/stores.js';
import { parseCommand, shared } from './cli/args.js';
import { interleave, measureRate, median, withRedis } from './measure/common.js';
import { finishPart } from './report/render.js';
import type { StoresReport } from './report/types.js';
import { judgeStore, pass } from './report/verdicts.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:stores -- [options]',
  summary:
    "Store decisions/s: sluice's PostgresStore, SqliteStore and RedisStore beside rate-limiter-flexible's Postgres and SQLite stores and @acpr/rate-limit-postgresql, in one run.",
  options: {
    rounds: shared.rounds(3),
    ms: shared.ms(2000),
    keys: { type: 'number', default: 10_000, help: 'keys, round robin' },
    inflight: { type: 'number', default: 256, help: 'consumes in flight (async subjects)' },
    only: { type: 'string', help: 'a comma-separated list of stores (postgres,sqlite,redis)' },
    json: shared.json,
  },
});

/** Decisions/s of a synchronous `consume` called in a loop for `ms`. */
function measureSync(consume: (key: string) => unknown, keys: string[], ms: number): number {
  const n = keys.length;
  let i = 0;
  let ops = 0;
  const start = performance.now();
  const end = start + ms;
  while (performance.now() < end) {
    for (let j = 0; j < 100; j++) {
      consume(keys[i]!);
      if (++i === n) i = 0;
    }
    ops += 100;
  }
  return (ops * 1000) / (performance.now() - start);
}

async function main(): Promise<void> {
  const only = args.only?.split(',');
  const subjects = STORE_SUBJECTS.filter((s) => only === undefined || only.includes(s.store));
  const keys = Array.from({ length: args.keys }, (_, i) => `user:${i}`);
  const db = await createPostgresDatabase();
  try {
    await withRedis(async (redis) => {
      const servers = { pg: db.config, pgUrl: db.url, redisPort: redis.port };
      const ready: Ready[] = [];
      for (const s of subjects) {
        process.stderr.write(`setup: ${s.label}\n`);
        ready.push(await s.setup(servers));
      }
      const rates = await interleave(subjects, args.rounds, (s) => {
        const r = ready[subjects.indexOf(s)]!;
        return s.sync
          ? measureSync(r.consume, keys, args.ms)
          : measureRate(async (k) => r.consume(k), keys, args.ms, args.inflight);
      });
      for (const r of ready) await r.close();
      const report: StoresReport = {
        keys: args.keys,
        inflight: args.inflight,
        rounds: args.rounds,
        ms: args.ms,
        rows: subjects.map((s, i) => ({
          store: s.store,
          subject: s.label,
          judged: s.label.startsWith('sluice'),
          decisionsPerSecond: Math.round(median(rates[i]!)),
          rounds: rates[i]!.map(Math.round),
        })),
      };
      const failed = report.rows.some((r) => judgeStore(r).verdict === 'FAIL');
      finishPart('stores', report, pass(!failed), args.json);
    });
  } finally {
    await db.drop();
  }
}

await main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
