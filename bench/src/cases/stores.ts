// The subjects of `pnpm bench:stores`: each store built on the run's servers and turned into one
// `consume(key)`, with a limit no run reaches (a denial throws).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresStore as RateLimitPostgresql } from '@acpr/rate-limit-postgresql';
import { gcra, RateLimiter, type Store } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { RedisStore } from '@sluice/redis';
import { SqliteStore } from '@sluice/sqlite';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import postgres from 'postgres';
import { RateLimiterPostgres, RateLimiterSQLite } from 'rate-limiter-flexible';

/** What a run provides: a database of its own, a redis-server, a scratch folder. */
export interface StoreBenchServers {
  pg: { host: string; port: number; user: string; database: string };
  pgUrl: string;
  redisPort: number;
}

/** One subject, ready: `consume(key)` and what to close afterwards. */
export interface Ready {
  consume(key: string): Promise<unknown> | unknown;
  close(): Promise<void>;
}

export interface StoreSubject {
  /** Which store: the row group of the report. */
  store: 'postgres' | 'sqlite' | 'redis';
  label: string;
  /** `true` when `consume` answers synchronously (measured in a loop, not with in-flight calls). */
  sync?: boolean;
  setup(servers: StoreBenchServers): Promise<Ready>;
}

/** A SQLite database in a scratch folder of its own. */
const scratchDb = (name: string) =>
  new Database(join(mkdtempSync(join(tmpdir(), 'sluice-bench-')), name));

/** An RLF limiter, once its constructor's callback says its table is ready. */
function rlfReady<T>(make: (ready: (error?: unknown) => void) => T): Promise<T> {
  return new Promise((resolve, reject) => {
    const limiter: T = make((error) => (error ? reject(error) : resolve(limiter)));
  });
}

/** A limit no bench run reaches: 1e9 per minute, burst 1e9. */
const algorithm = gcra({ rate: 1e9, period: '1m', burst: 1e9 });

function through(store: Store, close: () => Promise<void>): Ready {
  const limiter = new RateLimiter({ algorithm, store, onStoreError: 'deny', prefix: 'b' });
  return {
    async consume(key) {
      const d = await limiter.consume(key);
      if (!d.allowed) throw new Error('sluice denied a request: the bench limits are wrong');
    },
    close,
  };
}

/** sluice's PostgresStore on a client of `driver` (8 connections), its table migrated first. */
const sluicePostgres = (
  driver: string,
  connect: (s: StoreBenchServers) => pg.Pool | postgres.Sql,
): StoreSubject => ({
  store: 'postgres',
  label: `sluice PostgresStore (${driver})`,
  async setup(s) {
    const client = connect(s);
    const store = new PostgresStore({ client, sweepIntervalMs: 0 });
    await store.migrate();
    return through(store, () => client.end());
  },
});

export const STORE_SUBJECTS: StoreSubject[] = [
  sluicePostgres('pg', (s) => new pg.Pool({ ...s.pg, max: 8 })),
  sluicePostgres('postgres.js', (s) => postgres(s.pgUrl, { max: 8, onnotice: () => {} })),
  {
    store: 'postgres',
    label: 'rate-limiter-flexible RateLimiterPostgres',
    async setup(s) {
      const pool = new pg.Pool({ ...s.pg, max: 8 });
      const options = { storeClient: pool, tableName: 'rlflx', points: 1e9, duration: 60 };
      const limiter = await rlfReady((ready) => new RateLimiterPostgres(options, ready));
      return { consume: (key) => limiter.consume(key), close: () => pool.end() };
    },
  },
  {
    store: 'postgres',
    label: 'express-rate-limit + @acpr/rate-limit-postgresql',
    async setup(s) {
      const store = new RateLimitPostgresql({ ...s.pg, max: 8 }, 'b');
      store.init({ windowMs: 60_000 } as never);
      // Its constructor starts its migrations without a promise: wait for the function.
      const probe = new pg.Client(s.pg);
      await probe.connect();
      for (let i = 0; i < 100; i++) {
        const { rows } = await probe.query("SELECT 1 FROM pg_proc WHERE proname = 'agg_increment'");
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await probe.end();
      return {
        consume: (key) => store.increment(key),
        close: () => (store as unknown as { pool: pg.Pool }).pool.end(),
      };
    },
  },
  {
    store: 'sqlite',
    label: 'sluice SqliteStore, store.consume (sync)',
    sync: true,
    async setup() {
      const db = scratchDb('a.db');
      const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
      return {
        consume(key) {
          if (!store.consume(key, algorithm, 1, Date.now()).allowed) throw new Error('denied');
        },
        close: async () => void db.close(),
      };
    },
  },
  {
    store: 'sqlite',
    label: 'sluice SqliteStore, RateLimiter.consume',
    async setup() {
      const db = scratchDb('b.db');
      const store = new SqliteStore({ database: db, sweepIntervalMs: 0 });
      return through(store, async () => void db.close());
    },
  },
  {
    store: 'sqlite',
    label: 'rate-limiter-flexible RateLimiterSQLite (better-sqlite3)',
    async setup() {
      const db = scratchDb('c.db');
      db.pragma('journal_mode = WAL');
      const options = { storeClient: db, storeType: 'better-sqlite3', tableName: 'rlflx' };
      const limiter = await rlfReady(
        (ready) => new RateLimiterSQLite({ ...options, points: 1e9, duration: 60 }, ready),
      );
      return { consume: (key) => limiter.consume(key), close: async () => void db.close() };
    },
  },
  {
    store: 'redis',
    label: 'sluice RedisStore (ioredis)',
    async setup(s) {
      const client = new Redis({ host: '127.0.0.1', port: s.redisPort });
      return through(new RedisStore({ client }), async () => client.disconnect());
    },
  },
];
