// The PostgreSQL cells: sluice's RateLimiter on PostgresStore (a `pg` Pool per app, through
// the app's proxy) on a PostgreSQL of the cell's own (pg-server.ts), under the Redis cells'
// faults where they apply to a database: every PostgreSQL process SIGSTOPped, SIGKILLed and
// restarted (crash recovery empties the UNLOGGED table, as a Redis without persistence
// forgets), replies held, latency, one app partitioned. The bounds are the Redis cells':
// the failure policy is the core's, the same on every store.
import { RateLimiter } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import pg from 'pg';
import {
  FAULTS,
  LIMIT,
  load,
  makeAlgorithm,
  type RedisCellSpec,
  SMALL_LIMIT,
  sluiceBound,
} from './cells.js';
import { ownPostgres } from './pg-server.js';
import type { Fault } from './redis-cell.js';
import type { AlgorithmId, Policy, SluiceOptions, SubjectSpec } from './subjects.js';

const PREFIX = 'fm';

const pool = (port: number): pg.Pool => {
  const p = new pg.Pool({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    max: 4,
  });
  // A killed server ends the pool's idle connections: pg reports each on the pool.
  p.on('error', () => undefined);
  return p;
};

/** sluice's RateLimiter on PostgresStore, one pool per app. */
export function sluicePgSubject(o: SluiceOptions): SubjectSpec {
  const timeout = o.timeoutMs === undefined ? '' : `, timeoutMs: ${o.timeoutMs}`;
  return {
    id: `sluice-pg-${o.algorithm}-${o.policy}${o.timeoutMs === undefined ? '' : `-t${o.timeoutMs}`}`,
    label: `sluice ${o.algorithm}, ${o.policy}, PostgresStore${timeout}`,
    async app(port, clock) {
      const client = pool(port);
      const store = new PostgresStore({
        client,
        sweepIntervalMs: 0,
        ...(o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
      });
      await store.migrate();
      let lines = 0;
      const limiter = new RateLimiter({
        algorithm: makeAlgorithm(o.algorithm, o.limit),
        store,
        prefix: PREFIX,
        clock,
        onStoreError: o.policy,
        logger: { warn: () => void lines++ },
      });
      return {
        decide: async (key) => ((await limiter.consume(key)).allowed ? 'admitted' : 'denied'),
        logLines: () => lines,
        async close() {
          await store.close().catch(() => undefined);
          await client.end().catch(() => undefined);
        },
      };
    },
    async charged(port, key) {
      const client = pool(port);
      try {
        const store = new PostgresStore({ client, sweepIntervalMs: 0 });
        const algorithm = makeAlgorithm(o.algorithm, o.limit);
        const peek = await new RateLimiter({ algorithm, store, prefix: PREFIX }).peek(key);
        await store.close();
        return o.limit - peek.remaining;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
}

/** A Redis cell's fault, said of PostgreSQL. */
const pgFault = (id: string, label: string): Fault => ({ ...FAULTS[id]!, id: `pg-${id}`, label });
const PG_FAULTS: Record<string, Fault> = {
  stop: pgFault('stop', 'PostgreSQL: SIGSTOP of every server process for 1 s, then SIGCONT'),
  restart: pgFault(
    'restart',
    'PostgreSQL: SIGKILL of every server process (an UNLOGGED table), restarted 1 s later on its port',
  ),
  hold: pgFault('hold', 'PostgreSQL: replies held 1 s in transit for 1 s (proxy)'),
  latency: pgFault('latency', 'PostgreSQL: 200 ms added to every reply for 1 s (proxy)'),
  partition: pgFault('partition', 'PostgreSQL: one of the two apps partitioned for 1.5 s (proxy)'),
};

/** Every PostgreSQL cell, in the page's order. */
export function pgCells(): RedisCellSpec[] {
  const cells: RedisCellSpec[] = [];
  const add = (fault: string, algorithm: AlgorithmId, policy: Policy, timeoutMs?: number) => {
    const limit = fault === 'restart' ? SMALL_LIMIT : LIMIT;
    const o: SluiceOptions = {
      algorithm,
      policy,
      limit,
      makeAlgorithm,
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
    const subject = sluicePgSubject(o);
    const [bounds, boundText] = sluiceBound(fault, o);
    cells.push({
      kind: 'redis',
      id: `pg-${fault}/${subject.id}`,
      fault: PG_FAULTS[fault]!,
      subject,
      load: load(limit, algorithm),
      bounds,
      boundText: boundText.replace('Redis decides', 'PostgreSQL decides'),
      quick: false,
      start: ownPostgres,
    });
  };
  for (const p of ['deny', 'insurance', 'allow'] as const) add('stop', 'gcra', p);
  add('stop', 'fixed', 'deny');
  add('restart', 'gcra', 'deny');
  add('restart', 'fixed', 'deny');
  add('restart', 'gcra', 'insurance');
  add('hold', 'gcra', 'deny', 250);
  add('hold', 'fixed', 'deny', 250);
  add('latency', 'gcra', 'deny');
  add('partition', 'gcra', 'deny');
  add('partition', 'fixed', 'insurance');
  return cells;
}
