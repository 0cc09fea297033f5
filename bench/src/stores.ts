/**
 * `pnpm bench:stores`: decisions/s of sluice's PostgreSQL, SQLite and Redis stores beside
 * their peers, in one run (targets: Postgres >= 10 k/s over 10 k keys from one process,
 * aim 30 k; SQLite >= 50 k/s in one process): a database of its own on the local
 * PostgreSQL (created and dropped), a redis-server of its own, SQLite files in a scratch
 * folder. Async subjects keep `--inflight` calls outstanding over `--keys` keys round
 * robin; synchronous ones are called in a loop. Subjects are measured interleaved, the
 * median of `--rounds` reported.
 */
import { createPostgresDatabase } from '@sluice/test-kit';
import { type Ready, STORE_SUBJECTS, type StoreSubject } from './cases/stores.js';
import { parseCommand, shared } from './cli/args.js';
import { measureRate, median, withRedis } from './measure/common.js';

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

const TARGETS: Record<StoreSubject['store'], string> = {
  postgres: 'floor 10 k/s, aim 30 k/s (one process, 10 k keys)',
  sqlite: 'floor 50 k/s (one process)',
  redis: '(reference)',
};

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
      const rates: number[][] = subjects.map(() => []);
      for (let round = 0; round < args.rounds; round++) {
        for (const [i, s] of subjects.entries()) {
          const r = ready[i]!;
          const rate = s.sync
            ? measureSync(r.consume, keys, args.ms)
            : await measureRate(async (k) => r.consume(k), keys, args.ms, args.inflight);
          rates[i]!.push(rate);
          process.stderr.write(`round ${round + 1}: ${s.label}: ${Math.round(rate)}/s\n`);
        }
      }
      for (const r of ready) await r.close();
      const rows = subjects.map((s, i) => ({
        store: s.store,
        subject: s.label,
        decisionsPerSecond: Math.round(median(rates[i]!)),
        rounds: rates[i]!.map(Math.round),
        config: s.config,
      }));
      if (args.json) {
        console.log(JSON.stringify({ keys: args.keys, inflight: args.inflight, rows }, null, 2));
        return;
      }
      console.log(
        `\nStore decisions/s (${args.keys} keys, ${args.inflight} in flight, median of ${args.rounds} x ${args.ms} ms)\n`,
      );
      let group = '';
      for (const row of rows) {
        if (row.store !== group) {
          group = row.store;
          console.log(`${group}: ${TARGETS[row.store]}`);
        }
        console.log(`  ${row.subject.padEnd(58)} ${String(row.decisionsPerSecond).padStart(8)}/s`);
      }
    });
  } finally {
    await db.drop();
  }
}

await main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
