import type { Decision, Store } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';

/** A small seeded PRNG (mulberry32): the same seed, the same trace, on every store. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One operation of a trace, on the trace's key. */
export type TraceOp =
  | { op: 'consume'; dt: number; cost: number }
  | { op: 'refund'; dt: number; cost: number; charge: number };

/**
 * A random trace at the algorithm's time scale: bursts (dt 0), tiny steps, steps around
 * the scale and idles; costs from peeks to above the quota; refunds of earlier charges
 * (`charge` is the index of the op whose admitted charge is given back; a charge that was
 * denied gives back nothing), part of them or all, and, for algorithms with debt, negative
 * refunds (`costAfter` settling above its reserve).
 */
export function randomTrace(
  algorithm: Algorithm,
  scale: number,
  length: number,
  seed: number,
): TraceOp[] {
  const rand = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
  const s = Math.max(1, Math.ceil(scale));
  const limit = algorithm.limit;
  const ops: TraceOp[] = [];
  const refundable = typeof algorithm.refund === 'function';
  for (let i = 0; i < length; i++) {
    const r = rand();
    const dt =
      r < 0.3
        ? 0
        : r < 0.45
          ? int(1, 3)
          : r < 0.8
            ? int(0, s)
            : r < 0.9
              ? int(1, 3) * s
              : int(0, 5 * s);
    const kind = rand();
    if (refundable && i > 0 && kind < 0.15) {
      const charge = int(0, i - 1);
      const prior = ops[charge]!;
      const cost = prior.op === 'consume' ? int(1, Math.max(1, prior.cost)) : 1;
      ops.push({ op: 'refund', dt, cost, charge });
    } else if (refundable && algorithm.debt === true && kind < 0.2) {
      ops.push({ op: 'refund', dt, cost: -int(1, 3), charge: -1 });
    } else {
      const c = rand();
      const cost =
        c < 0.15
          ? 0
          : c < 0.7
            ? 1
            : c < 0.85
              ? int(0, limit)
              : c < 0.92
                ? limit
                : int(limit + 1, limit + 3);
      ops.push({ op: 'consume', dt, cost });
    }
  }
  return ops;
}

/**
 * Runs `ops` on `key` of `store` from `start` (ms since the epoch), each op after the
 * previous one's answer; returns every decision. A refund gives back its charge's units at
 * the charge's time (nothing when that charge was denied or was itself a refund).
 */
export async function runTrace(
  store: Store,
  key: string,
  algorithm: Algorithm,
  start: number,
  ops: readonly TraceOp[],
): Promise<Decision[]> {
  let now = start;
  const out: Decision[] = [];
  const times: number[] = [];
  for (const [i, o] of ops.entries()) {
    now += o.dt;
    times.push(now);
    if (o.op === 'consume') {
      out.push(await store.consume(key, algorithm, o.cost, now));
      continue;
    }
    const charged = o.charge < 0 || (ops[o.charge]!.op === 'consume' && out[o.charge]!.allowed);
    const at = o.charge < 0 ? now : times[o.charge]!;
    const cost = charged ? o.cost : 0;
    out.push(await store.refund!(key, algorithm, cost, now, at));
    void i;
  }
  return out;
}

/**
 * As {@link runTrace} on `reference` and `store` in lockstep, each op on both at the same
 * time, for a store whose keys expire in real time (Redis `PEXPIRE`): an op's time is the
 * previous op's plus the larger of its `dt` and the real time since the previous op, so a
 * machine slower than the trace's clock never lets the store expire a key the reference
 * still holds. Both answer the same ops at the same times: their decisions must be equal,
 * unless an op took longer than the store's keys outlive their state (Redis: `SLACK_MS`):
 * the key may then have expired in real time between the op's time and its arrival. The
 * third value, the slowest op's ms from its time to both answers, tells the caller so.
 */
export async function runTraceInRealTime(
  reference: Store,
  referenceKey: string,
  store: Store,
  key: string,
  algorithm: Algorithm,
  start: number,
  ops: readonly TraceOp[],
): Promise<[Decision[], Decision[], number]> {
  let now = start;
  let real = performance.now();
  let slowest = 0;
  const expected: Decision[] = [];
  const actual: Decision[] = [];
  const times: number[] = [];
  for (const o of ops) {
    const t = performance.now();
    now += Math.max(o.dt, Math.ceil(t - real));
    real = t;
    times.push(now);
    if (o.op === 'consume') {
      expected.push(await reference.consume(referenceKey, algorithm, o.cost, now));
      actual.push(await store.consume(key, algorithm, o.cost, now));
      slowest = Math.max(slowest, performance.now() - t);
      continue;
    }
    const charge = o.charge;
    const chargedIn = (out: Decision[]) =>
      charge < 0 || (ops[charge]!.op === 'consume' && out[charge]!.allowed);
    const at = charge < 0 ? now : times[charge]!;
    expected.push(
      await reference.refund!(referenceKey, algorithm, chargedIn(expected) ? o.cost : 0, now, at),
    );
    actual.push(await store.refund!(key, algorithm, chargedIn(actual) ? o.cost : 0, now, at));
    slowest = Math.max(slowest, performance.now() - t);
  }
  return [expected, actual, slowest];
}
