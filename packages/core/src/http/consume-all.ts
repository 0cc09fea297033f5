import type { Algorithm } from '../algorithm.js';
import type { Decision } from '../decision.js';
import type { Store } from '../store.js';
import type { Scope } from './plan.js';

/** A key of one request under one limit. */
export interface Entry {
  scope: Scope;
  subject: string;
  algorithm: Algorithm;
  cost: number;
}

/** Decides `entry` with `cost` (0: a peek) in `store`, through its scope's store when it has one. */
export function consumeAt(
  store: Store,
  entry: Entry,
  cost: number,
  now: number,
): Decision | Promise<Decision> {
  const { scope, subject } = entry;
  return scope.store !== undefined
    ? scope.store.consume(subject, entry.algorithm, cost, now)
    : store.consume(scope.prefix + subject, entry.algorithm, cost, now);
}

/**
 * Consumes every entry or none: first a peek of each (cost 0), and only if each fits
 * (`cost <= remaining`, which is exactly each algorithm's admission rule) the consumes.
 * With a synchronous store (MemoryStore) nothing runs in between, so it is atomic; with
 * an asynchronous store another request can slip in between the peek and the consume.
 */
export function consumeAll(
  store: Store,
  entries: Entry[],
  now: number,
): Decision[] | Promise<Decision[]> {
  const peeks = entries.map((e) => consumeAt(store, e, 0, now));
  const finish = (ps: Decision[]): Decision[] | Promise<Decision[]> => {
    const fits = ps.every((p, i) => entries[i]!.cost <= p.remaining);
    if (fits) return settle(entries.map((e) => consumeAt(store, e, e.cost, now)));
    // Denied: ask the limits that do not fit for their real denial (which consumes nothing);
    // the others are reported as they stand, uncharged.
    return settle(
      entries.map((e, i) =>
        e.cost <= ps[i]!.remaining ? { ...ps[i]!, cost: e.cost } : consumeAt(store, e, e.cost, now),
      ),
    );
  };
  const ready = settle(peeks);
  return ready instanceof Promise ? ready.then(finish) : finish(ready);
}

function settle(values: (Decision | Promise<Decision>)[]): Decision[] | Promise<Decision[]> {
  return values.some((v) => v instanceof Promise) ? Promise.all(values) : (values as Decision[]);
}
