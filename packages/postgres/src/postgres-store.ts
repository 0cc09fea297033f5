import type { Decision, Store } from '@sluice/core';
import {
  type Algorithm,
  enableOperations,
  fullKey,
  type OperationsSync,
  releaseOperations,
  type StoreRequest,
} from '@sluice/core/store';
import { Batcher, type Request } from './batch.js';
import type { PostgresClient } from './client.js';
import { notMigrated, readySql, withMigrationHint } from './not-ready.js';
import { PostgresOperations } from './operations.js';
import { type PostgresStoreOptions, parseOptions } from './options.js';
import { migrationSql } from './sql/migration.js';
import { sqlNames } from './sql/names.js';
import { channelOf } from './sql/operations.sql.js';
import { Sweeper } from './sweeper.js';

/** The kinds the SQL twins run (`Algorithm.kind`). */
const KINDS: ReadonlySet<unknown> = new Set([
  'gcra',
  'fixed-window',
  'sliding-window',
  'sliding-log',
  'calendar-window',
]);

/** The twin's kind for `algorithm` (`'penalty:<inner>'` for `Limit.blockFor`), or undefined. */
function kindOf(algorithm: Algorithm): string | undefined {
  const inner = algorithm.inner;
  if (inner !== undefined) {
    return inner.inner === undefined && KINDS.has(inner.kind) ? `penalty:${inner.kind}` : undefined;
  }
  return KINDS.has(algorithm.kind) ? algorithm.kind : undefined;
}

function noTwin(kind: unknown): TypeError {
  const name = typeof kind === 'string' ? JSON.stringify(kind) : String(kind);
  return new TypeError(`sluice: PostgresStore has no SQL twin for algorithm kind ${name}`);
}

/**
 * A {@link Store} in PostgreSQL, through `pg` or postgres.js: every algorithm is a PL/pgSQL
 * function, the twin of its TS `step` (as the Lua twins of @sluice/redis are), run on the
 * database's clock by default, so the app servers' clocks do not matter. The calls of one
 * turn of the event loop go in one statement (many decisions per round trip); each
 * statement locks its rows in one key order, so no two statements deadlock, and decides
 * every request of a limiter's stack all-or-nothing. Expired rows are swept in bounded
 * passes. Run {@link PostgresStore.migrate} once (at deploy or startup) to create the
 * table and functions; {@link PostgresStore.ready} checks they are there (without them
 * every call fails with a `StoreNotReadyError` naming `migrate()`).
 *
 * A call that times out (`timeoutMs`) charges nothing, even when the database runs it later:
 * each statement carries its deadline on the database clock and decides nothing past it;
 * a statement that ran in time but whose reply arrived after the call was given up (held
 * up in transit, or `failPending`) gives its charges back when the reply arrives, with the
 * algorithm's refund (best effort: a give-back that fails, or a reply that never arrives,
 * leaves it charged).
 * The limiter puts the store behind a `FailSafeStore` (breaker, `onStoreError` policy,
 * over-limit cache), as it does a RedisStore.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * const store = new PostgresStore({ client: new pg.Pool({ connectionString }) });
 * await store.migrate();
 * const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
 * ```
 *
 * @throws {@link SluiceConfigError} naming `client` (neither pg nor postgres.js), `clock`,
 *   `schema`, `table` (not an identifier), `logged`, `timeoutMs`, `sweepIntervalMs`,
 *   `sweepBatch`, `operations.syncMs` or an unknown option name. Never with a connection string in the message.
 */
export class PostgresStore implements Store {
  /** The client (option `client`). */
  readonly client: PostgresClient;
  /** Whose clock decides (option `clock`). */
  readonly clock: 'server' | 'client';
  /** The table, schema-qualified and quoted, e.g. `"public"."sluice_limits"`. */
  readonly table: string;
  /** The longest a call may take, ms (option `timeoutMs`). */
  readonly timeoutMs: number;
  readonly #migration: string;
  readonly #batcher: Batcher;
  readonly #sweeper: Sweeper;
  readonly #sql;
  readonly #ready: string;
  /**
   * The operator entries (bans, allow and deny lists, overrides: `LimitOperations`) of
   * every limiter prefix, shared by every process on this database: in the tables
   * `<table>_ops` and `<table>_ops_version` that {@link PostgresStore.migrate} creates; each
   * write bumps a version and sends it with `NOTIFY`. Each process `LISTEN`s on one
   * connection of its own (pg: a `Client` the store opens with the pool's settings,
   * `application_name` `'sluice-listen'`, closed by {@link PostgresStore.close};
   * postgres.js: `sql.listen`), made when a limiter or `LimitOperations` first subscribes,
   * and re-checks the version every `syncMs`. Limiters decide from a snapshot in process:
   * no statement per decision.
   */
  readonly operations: OperationsSync;
  readonly #operations: PostgresOperations;

  constructor(options: PostgresStoreOptions) {
    const config = parseOptions(options);
    const names = sqlNames(config.schema, config.table);
    this.client = config.client;
    this.clock = config.clock;
    this.table = names.table;
    this.timeoutMs = config.timeoutMs;
    // A missing table or function fails every call with one error naming migrate().
    const sql = withMigrationHint(config.sql, names.table);
    this.#sql = sql;
    this.#ready = readySql(names);
    const channel = channelOf(config.schema, config.table);
    this.#migration = migrationSql(names, config, channel);
    this.#batcher = new Batcher({
      client: sql,
      decide: names.fn('decide'),
      statement: `sluice_decide_${config.schema}_${config.table}`,
      timeoutMs: config.timeoutMs,
    });
    this.#sweeper = new Sweeper({ ...config, sql }, names);
    enableOperations();
    this.#operations = new PostgresOperations({
      sql,
      names,
      channel,
      syncMs: config.syncMs,
    });
    this.operations = this.#operations;
  }

  /**
   * Creates (or updates) the table and the functions, and the tables of the operator
   * entries (`<table>_ops`, `<table>_ops_version`, logged), in one transaction under an advisory
   * lock, so processes that start together do not race. Idempotent; run at deploy or
   * startup, before the first decision. Needs the right to create in the schema.
   */
  async migrate(): Promise<void> {
    await this.#sql.transaction(this.#migration);
  }

  /**
   * {@link Store.ready}: resolves when the table, the operator-entry tables and this
   * version's functions exist (one query); rejects with a `StoreNotReadyError` naming
   * `migrate()` when they do not (never migrated, or migrated by an older version), or
   * with the client's error when the database cannot be reached. Call it at start-up (the
   * Fastify plugin's `onReady` and NestJS's module init do) so a missing migration fails
   * there: on the request path it is a store failure that `onStoreError` answers, logged
   * once per outage with the same message.
   *
   * @example
   * ```ts
   * await store.migrate(); // where the role may create; elsewhere:
   * await store.ready();
   * ```
   */
  async ready(): Promise<void> {
    if ((await this.#sql.value(this.#ready, [])) !== true) throw notMigrated(this.table);
  }

  consume(key: string, algorithm: Algorithm, cost: number, nowMs: number): Promise<Decision> {
    const one = this.#request(key, algorithm, cost, nowMs);
    if (one instanceof TypeError) return Promise.reject(one);
    return this.#batcher.add([one]).then(first);
  }

  /**
   * {@link Store.consumeAll}: every request admitted, or none charged, in one statement that
   * locks every row of the stack (in key order) before deciding: atomic under concurrency,
   * across processes.
   */
  consumeAll(requests: readonly StoreRequest[], nowMs: number): Promise<Decision[]> {
    const batch: Request[] = [];
    for (const r of requests) {
      const one = this.#request(fullKey(r), r.algorithm, r.cost, nowMs);
      if (one instanceof TypeError) return Promise.reject(one);
      batch.push(one);
    }
    return this.#batcher.add(batch);
  }

  /**
   * {@link Store.consumeAtMost}: up to `max` units by the SQL twin of core's `stepAtMost`
   * (`<table>_at_most`), in the turn's statement with the other calls, on its locked row:
   * atomic across processes. A database migrated before this version needs `migrate()`
   * again (it adds the function).
   */
  consumeAtMost(key: string, algorithm: Algorithm, max: number, nowMs: number): Promise<Decision> {
    const one = this.#request(key, algorithm, max, nowMs);
    if (one instanceof TypeError) return Promise.reject(one);
    one.op = 2;
    return this.#batcher.add([one]).then(first);
  }

  /**
   * {@link Store.refund}: gives back `cost` units charged at `atMs` with the algorithm's SQL
   * refund (the twin of its TS `refund`), atomically. With `clock: 'server'`, `atMs` must
   * be on the database's clock: `chargeTimeOf(decision)` of the charge (this store records
   * it). A negative `cost` charges past the quota (`Limit.costAfter`'s debt).
   */
  refund(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    atMs: number,
  ): Promise<Decision> {
    const one = this.#request(key, algorithm, cost, nowMs, atMs);
    if (one instanceof TypeError) return Promise.reject(one);
    return this.#batcher.add([one]).then(first);
  }

  async reset(key: string): Promise<void> {
    // Decisions asked for before this reset reach the database first.
    this.#batcher.flush();
    await this.#sql.value(`DELETE FROM ${this.table} WHERE key = $1`, [key]);
  }

  /** {@link Store.failPending}: rejects every call sent and not answered yet. */
  failPending(): void {
    this.#batcher.failPending();
  }

  /**
   * Deletes expired rows now, in passes of at most `sweepBatch` rows, until a pass finds
   * fewer (or `maxPasses` passes ran); resolves to how many it deleted. The store does it
   * every `sweepIntervalMs` by itself.
   */
  sweep(maxPasses = 100): Promise<number> {
    return this.#sweeper.sweep(maxPasses);
  }

  /**
   * Stops the periodic sweep, and the listening for operator entries: the connection the
   * store opened for it (pg) is closed, postgres.js's `sql.listen` unlistened. Limiters keep
   * deciding from the entries they have. Does not end the client.
   */
  async close(): Promise<void> {
    this.#sweeper.stop();
    releaseOperations(this.operations);
    await this.#operations.close();
  }

  /** A consume, or with `refundAt` a refund of a charge decided then. */
  #request(
    key: string,
    algorithm: Algorithm,
    cost: number,
    nowMs: number,
    refundAt?: number,
  ): Request | TypeError {
    // A calendar quota's SQL parameters are the edges around the caller's time.
    if (algorithm.at !== undefined) algorithm = algorithm.at(nowMs);
    const kind = kindOf(algorithm);
    if (kind === undefined) return noTwin(algorithm.kind);
    const client = this.clock === 'client';
    this.#sweeper.saw(nowMs);
    const op: Request['op'] = refundAt === undefined ? 0 : 1;
    return { key, op, algorithm, kind, cost, now: client ? nowMs : null, at: refundAt ?? 0 };
  }
}

function first(decisions: Decision[]): Decision {
  return decisions[0]!;
}
