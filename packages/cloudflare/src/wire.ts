import type { Decision } from '@sluice/core';
import {
  type Algorithm,
  type CalendarPeriod,
  CalendarWindowAlgorithm,
  ConcurrencyAlgorithm,
  FixedWindowAlgorithm,
  GcraAlgorithm,
  type OperationEntry,
  PenaltyAlgorithm,
  SlidingLogAlgorithm,
  SlidingWindowAlgorithm,
} from '@sluice/core/store';

// What DurableObjectStore sends to SluiceDurableObject and what comes back: JSON, one
// batch per fetch. An algorithm crosses as its family and integer parameters (as a Lua
// twin reads them) and is rebuilt on the object from the same core classes, so the object
// runs the very `step` MemoryStore runs.

/** An algorithm on the wire: `[family, params]`, or a penalty: `['penalty', [block, backoff, max], inner]`. */
export type AlgorithmSpec =
  | [
      family: 'gcra' | 'fixed-window' | 'sliding-window' | 'sliding-log' | 'concurrency',
      params: number[],
    ]
  | [family: 'calendar-window', params: number[]]
  | [family: 'penalty', params: number[], inner: AlgorithmSpec];

/** One operation of a batch. `a` indexes the batch's `algorithms`; `t` is the caller's now (ms). */
export type Operation =
  | { op: 'consume'; key: string; a: number; cost: number; t: number }
  | { op: 'refund'; key: string; a: number; cost: number; t: number; at: number }
  | { op: 'atMost'; key: string; a: number; max: number; t: number }
  | { op: 'reserve'; key: string; a: number; cost: number; t: number; maxWait: number }
  | { op: 'all'; keys: string[]; a: number[]; costs: number[]; t: number }
  | { op: 'reserveAll'; keys: string[]; a: number[]; costs: number[]; t: number; maxWait: number }
  | { op: 'reset'; key: string }
  // Operator entries (`DurableObjectStore#operations`), on the object of their prefix. `p`
  // is the limiter prefix; `known` the version the caller holds (its entries then stay home).
  | { op: 'opsLoad'; p: string; known?: number }
  | { op: 'opsVersion'; p: string }
  | { op: 'opsPut'; p: string; entry: OperationEntry }
  | { op: 'opsRemove'; p: string; id: string };

/** A batch: the body of one fetch to the object. */
export interface Batch {
  algorithms: AlgorithmSpec[];
  ops: Operation[];
}

/** A decision on the wire: `[allowed 0|1, limit, remaining, retryAfterMs, resetAfterMs, cost]`. */
export type WireDecision = [number, number, number, number, number, number];

/**
 * One operation's answer: a decision, decisions (`all`), a reservation, reservations
 * (`reserveAll`), `ok` (reset), a version of operator entries (`v`, with the entries for an
 * `opsLoad` whose `known` version is not the object's) or an error.
 */
export type Outcome =
  | { d: WireDecision }
  | { all: WireDecision[] }
  | { d: WireDecision; delay: number }
  | { reserved: [decision: WireDecision, delay: number][] }
  | { ok: true }
  | { v: number; entries?: OperationEntry[] }
  | { error: string };

/** The object's answer to a batch: one outcome per operation, in order. */
export interface BatchReply {
  outcomes: Outcome[];
}

export function toWire(d: Decision): WireDecision {
  return [d.allowed ? 1 : 0, d.limit, d.remaining, d.retryAfterMs, d.resetAfterMs, d.cost];
}

export function fromWire(w: WireDecision): Decision {
  return {
    allowed: w[0] === 1,
    limit: w[1],
    remaining: w[2],
    retryAfterMs: w[3],
    resetAfterMs: w[4],
    cost: w[5],
  };
}

/**
 * The wire form of `algorithm` at `nowMs` (a calendar quota sends the four edges around
 * the caller's time, as RedisStore sends them to its Lua twin).
 *
 * @throws `TypeError` for an algorithm that is not one of sluice's built-in classes (a
 *   custom `step` cannot run on the object) or is `Limit.adaptive` (never in a store).
 */
export function specOf(algorithm: Algorithm, nowMs: number): AlgorithmSpec {
  if (algorithm instanceof PenaltyAlgorithm) {
    const { blockMs, backoff, maxBlockMs } = algorithm.penalty;
    return ['penalty', [blockMs, backoff, maxBlockMs], specOf(algorithm.inner, nowMs)];
  }
  if (algorithm instanceof GcraAlgorithm) return ['gcra', [...algorithm.params]];
  if (algorithm instanceof ConcurrencyAlgorithm) return ['concurrency', [...algorithm.params]];
  if (algorithm instanceof SlidingLogAlgorithm) return ['sliding-log', [...algorithm.params]];
  if (algorithm instanceof SlidingWindowAlgorithm) return ['sliding-window', [...algorithm.params]];
  if (algorithm instanceof FixedWindowAlgorithm) return ['fixed-window', [...algorithm.params]];
  if (algorithm instanceof CalendarWindowAlgorithm) {
    return ['calendar-window', [...algorithm.at(nowMs).params]];
  }
  throw new TypeError(
    `sluice: DurableObjectStore runs sluice's built-in algorithms on the object; ${algorithm.description} is not one` +
      (algorithm.kind === 'adaptive'
        ? ' (Limit.adaptive decides in process, never in a store)'
        : ''),
  );
}

/** A calendar window whose edges came from the caller: the object needs no time zones. */
class EdgeCalendarWindow extends CalendarWindowAlgorithm {
  readonly #e: readonly number[];

  constructor(quota: number, edges: readonly number[]) {
    // The period only names the quota in `description`; the edges decide every window.
    const period: CalendarPeriod = { unit: 'day', timeZone: 'caller', weekStart: 1, anchorDay: 1 };
    super(quota, period, edges);
    this.#e = edges;
  }

  /** The end of the window that holds `t`, from the four edges (the Lua twin's `calendar_end`). */
  override windowEnd(t: number): number {
    const [, e1, e2, e3] = this.#e as [number, number, number, number];
    if (t < e1) return e1;
    if (t < e2) return e2;
    if (t < e3) return e3;
    const span = e3 - e2;
    return e3 + span * (Math.floor((t - e3) / span) + 1);
  }
}

/**
 * The algorithm of a wire spec, rebuilt from core's classes.
 * @throws `TypeError` for a spec this version does not know (a newer store, an older object).
 */
export function algorithmOf(spec: AlgorithmSpec): Algorithm {
  const [family, p] = spec;
  switch (family) {
    case 'gcra':
      return new GcraAlgorithm({ num: p[0]!, den: p[1]! }, p[2]!, 'gcra');
    case 'fixed-window':
      return new FixedWindowAlgorithm(p[0]!, p[1]!);
    case 'sliding-window':
      return new SlidingWindowAlgorithm(p[0]!, p[1]!);
    case 'sliding-log':
      return new SlidingLogAlgorithm(p[0]!, p[1]!);
    case 'concurrency':
      return new ConcurrencyAlgorithm(p[0]!, p[1]!);
    case 'calendar-window':
      return new EdgeCalendarWindow(p[0]!, p.slice(1));
    case 'penalty':
      return new PenaltyAlgorithm(algorithmOf(spec[2]), {
        blockMs: p[0]!,
        backoff: p[1]!,
        maxBlockMs: p[2]!,
      });
    default:
      throw new TypeError(`sluice: unknown algorithm family ${JSON.stringify(family)} on the wire`);
  }
}
