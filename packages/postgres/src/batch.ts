import type { Decision } from '@sluice/core';
import {
  type Algorithm,
  StoreAbandonedError,
  StoreTimeoutError,
  withChargeTime,
} from '@sluice/core/store';
import type { SqlClient } from './client.js';
import { EXPIRED, WIDTH } from './sql/decide.sql.js';

/** The most requests one statement decides; more wait for the next statement. */
const MAX_BATCH = 512;

/** One request of a batch. */
export interface Request {
  key: string;
  /** 0: consume, 1: refund, 2: a partial grant (`consumeAtMost`; `cost` is its max). */
  op: 0 | 1 | 2;
  algorithm: Algorithm;
  /** The twin's kind (`'gcra'`, `'penalty:gcra'`...). */
  kind: string;
  cost: number;
  /** The caller's time (clock 'client'), or null for the database clock. */
  now: number | null;
  /** A refund's charge time (0 for a consume). */
  at: number;
}

/** A group of requests decided all-or-nothing (one request: a plain decision). */
interface Group {
  requests: Request[];
  resolve(decisions: Decision[]): void;
  reject(error: Error): void;
  settled: boolean;
}

interface Batch {
  groups: Group[];
  size: number;
  /** `performance.now()` of its first call. */
  startedAt: number;
}

/** What a {@link Batcher} needs. */
export interface BatcherOptions {
  client: SqlClient;
  /** The `decide` function, qualified and quoted. */
  decide: string;
  /** The prepared statement's name (pg). */
  statement: string;
  timeoutMs: number;
}

/**
 * Collects the calls of one turn of the event loop (up to {@link MAX_BATCH} requests) into
 * one statement, `SELECT decide(...)`: many decisions per round trip, each statement
 * atomic. Each statement carries a deadline on the database's clock (the offset of that
 * clock from this process's is measured on every reply), and the function decides nothing
 * once it has passed: a call that timed out charges nothing. A statement that ran in time
 * but whose reply came after the call was given up (its reply held up, `failPending`) gives
 * its charges back when the reply arrives, with each algorithm's refund. Until the first
 * reply, calls carry no deadline (a late reply is given back the same way).
 */
export class Batcher {
  readonly #options: BatcherOptions;
  #open: Batch | undefined;
  readonly #inFlight = new Set<Group[]>();
  /** The database clock minus `Date.now()`, ms (undefined before the first reply). */
  #offset: number | undefined;
  readonly #flushLater = () => this.flush();

  constructor(options: BatcherOptions) {
    this.#options = options;
  }

  /** Decides `requests` all-or-nothing (one request: alone) in the next statement. */
  add(requests: Request[]): Promise<Decision[]> {
    return new Promise((resolve, reject) => {
      let batch = this.#open;
      if (batch === undefined) {
        batch = { groups: [], size: 0, startedAt: performance.now() };
        this.#open = batch;
        setImmediate(this.#flushLater);
      }
      batch.groups.push({ requests, resolve, reject, settled: false });
      batch.size += requests.length;
      if (batch.size >= MAX_BATCH) this.flush();
    });
  }

  /** Sends the open batch now (calls added later go to the next one). */
  flush(): void {
    const batch = this.#open;
    if (batch === undefined) return;
    this.#open = undefined;
    this.#send(batch);
  }

  /** Rejects every call sent and not answered yet (see `Store.failPending`). */
  failPending(): void {
    for (const groups of this.#inFlight) settleAll(groups, new StoreAbandonedError('the database'));
    this.#inFlight.clear();
  }

  /**
   * Sends the refunds of charges whose callers were given up on, in a statement of their
   * own with no deadline (no caller waits for it; one sent with a deadline measured from
   * held-up replies could expire before it ran). Best effort: a failure leaves them charged.
   */
  #giveBack(refunds: Request[]): void {
    // one group each: a group of several is decided all-or-nothing, as consumes
    const groups = refunds.map(
      (r): Group => ({ requests: [r], resolve: ignore, reject: ignore, settled: false }),
    );
    this.#send({ groups, size: refunds.length, startedAt: performance.now() }, false);
  }

  /** Sends `batch`; with `bounded`, carrying its deadline on the database clock. */
  #send(batch: Batch, bounded = true): void {
    const { client, decide, statement, timeoutMs } = this.#options;
    const groups = batch.groups;
    const args = encode(groups);
    const deadline =
      this.#offset === undefined || !bounded
        ? null
        : Date.now() + this.#offset + timeoutMs - (performance.now() - batch.startedAt);
    this.#inFlight.add(groups);
    const timer = setTimeout(
      () => {
        this.#inFlight.delete(groups);
        settleAll(groups, new StoreTimeoutError(timeoutMs));
      },
      Math.max(0, timeoutMs - (performance.now() - batch.startedAt)),
    );
    const text = `SELECT ${decide}($1::text[], $2::int[], $3::int[], $4::int[], $5::int[], $6::float8[], $7::float8[], $8::float8[], $9::text[], $10::float8[], $11::int[], $12::int[], $13::float8)`;
    client.value(text, [...args, deadline], statement).then(
      (reply) => {
        clearTimeout(timer);
        this.#inFlight.delete(groups);
        const values = reply as number[];
        const clock = values[values.length - 1]!;
        this.#offset = clock - Date.now();
        if (values[0] === EXPIRED) return settleAll(groups, new StoreTimeoutError(timeoutMs));
        const late = decodeAll(groups, values, clock);
        // Charged in time, answered too late (the caller was decided by its policy): given
        // back exactly, best effort (a give-back that fails leaves it charged).
        if (late.length > 0) this.#giveBack(late);
      },
      (error: unknown) => {
        clearTimeout(timer);
        this.#inFlight.delete(groups);
        settleAll(groups, error instanceof Error ? error : new Error(String(error)));
      },
    );
  }
}

function ignore(): void {}

function settleAll(groups: Group[], error: Error): void {
  for (const g of groups) {
    if (g.settled) continue;
    g.settled = true;
    g.reject(error);
  }
}

/**
 * The decisions of a reply, to each group (server clock: with the charge time); returns the
 * refunds of what a group already given up on (timed out, `failPending`) was charged.
 */
function decodeAll(groups: Group[], values: number[], clock: number): Request[] {
  let at = 0;
  const late: Request[] = [];
  for (const g of groups) {
    const decisions: Decision[] = [];
    for (const r of g.requests) {
      // A partial grant replies the units granted where `allowed` is (0: none).
      const granted = r.op === 2 ? values[at]! : -1;
      const d: Decision = {
        allowed: r.op === 2 ? granted > 0 : values[at] === 1,
        limit: r.algorithm.limit,
        remaining: values[at + 1]!,
        retryAfterMs: values[at + 2]!,
        resetAfterMs: values[at + 3]!,
        cost: r.op === 1 ? 0 : r.op === 2 ? granted : r.cost,
      };
      decisions.push(r.now === null ? withChargeTime(d, clock) : d);
      at += WIDTH;
    }
    if (!g.settled) {
      g.settled = true;
      g.resolve(decisions);
    } else if (decisions.every((d) => d.allowed)) {
      // all-or-nothing: a group charged only when each of its requests was admitted
      for (const r of g.requests) {
        if (r.op === 0 && r.cost !== 0) late.push({ ...r, op: 1, at: r.now ?? clock });
      }
    }
  }
  return late;
}

/** The arguments of `decide` for these groups (see decide.sql.ts), without the deadline. */
function encode(groups: Group[]): unknown[] {
  const keyIndex = new Map<string, number>();
  const algIndex = new Map<Algorithm, number>();
  const kinds: string[] = [];
  const params: number[] = [];
  const offsets: number[] = [];
  const lengths: number[] = [];
  const keys: string[] = [];
  const ops: number[] = [];
  const grp: number[] = [];
  const alg: number[] = [];
  const costs: number[] = [];
  const ats: number[] = [];
  const nows: (number | null)[] = [];
  let g = 0;
  for (const group of groups) {
    g++;
    for (const r of group.requests) {
      keys.push(r.key);
      keyIndex.set(r.key, 0);
      let a = algIndex.get(r.algorithm);
      if (a === undefined) {
        a = kinds.push(r.kind);
        algIndex.set(r.algorithm, a);
        offsets.push(params.length + 1);
        lengths.push(r.algorithm.params.length);
        for (const p of r.algorithm.params) params.push(p);
      }
      ops.push(r.op);
      grp.push(g);
      alg.push(a);
      costs.push(r.cost);
      ats.push(r.at);
      nows.push(r.now);
    }
  }
  // Every statement locks its keys in one order (UTF-16 code units): no deadlock.
  const distinct = [...keyIndex.keys()].sort();
  for (const [i, k] of distinct.entries()) keyIndex.set(k, i + 1);
  const kidx = keys.map((k) => keyIndex.get(k)!);
  // One clock per store: every `now` is the caller's, or none is (the database's clock).
  const times = nows[0] === null ? null : nows;
  return [distinct, kidx, ops, grp, alg, costs, times, ats, kinds, params, offsets, lengths];
}
