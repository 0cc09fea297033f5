import type { Decision } from '../../algorithms/decision.js';
import { moreRestrictive } from '../../engine/restrictive.js';
import type { Store } from '../../stores/store.js';
import type { HttpVerdict } from '../verdict/verdict.js';
import { type Charge, consumeAll, consumeAt } from './charge.js';

/**
 * What one request has been through, remembered on an object that lives exactly as long as
 * the request (its `RequestView.ledger`) under symbols, so that limiters reached one after
 * another (a global and a per-route one) agree:
 * - the keys it was charged under: a request is charged once per key;
 * - the verdict reported so far: the most restrictive one is what the headers and the
 *   request object show.
 */
const kCharged = Symbol('sluice.charged');
const kReported = Symbol('sluice.reported');

/** One admitted charge: a short list, looked up when the request reaches another limiter. */
interface ChargeRecord {
  /** The user's store itself, the plan's `userStore` (limiters on different stores never share a key). */
  userStore: Store;
  prefix: string;
  subject: string;
  decision: Decision;
  next: ChargeRecord | undefined;
}

/** The request's ledger object (see `RequestView.ledger`). */
export type Ledger = { [kCharged]?: ChargeRecord; [kReported]?: HttpVerdict };

/** The ledger object of a view: `ledger`, else `raw` when it is an object. */
export function ledgerOf(ledger: unknown): Ledger | undefined {
  return typeof ledger === 'object' && ledger !== null ? (ledger as Ledger) : undefined;
}

/** The decision this request was already charged for `prefix + subject` in `userStore`, if any. */
export function chargedFor(
  ledger: Ledger | undefined,
  userStore: Store,
  prefix: string,
  subject: string,
): Decision | undefined {
  for (let c = ledger?.[kCharged]; c !== undefined; c = c.next) {
    if (c.subject === subject && c.prefix === prefix && c.userStore === userStore)
      return c.decision;
  }
  return undefined;
}

/** Records an admitted charge of this request for `prefix + subject` in `userStore`. */
export function remember(
  ledger: Ledger | undefined,
  userStore: Store,
  prefix: string,
  subject: string,
  decision: Decision,
): void {
  if (ledger !== undefined && decision.allowed) {
    ledger[kCharged] = { userStore, prefix, subject, decision, next: ledger[kCharged] };
  }
}

/**
 * Reports `verdict` for the request unless an earlier limiter reported a more restrictive
 * one. Returns `verdict` when it is now the one reported (remembered here; its headers and
 * decision are to be written), `undefined` when the earlier one stands (already written).
 */
export function report(ledger: Ledger | undefined, verdict: HttpVerdict): HttpVerdict | undefined {
  if (ledger === undefined) return verdict;
  const previous = ledger[kReported];
  if (previous !== undefined && !moreRestrictive(verdict.decision, previous.decision)) {
    return undefined;
  }
  ledger[kReported] = verdict;
  return verdict;
}

/** The verdict reported for this request so far (see {@link report}). */
export function reportedOf(ledger: Ledger | undefined): HttpVerdict | undefined {
  return ledger?.[kReported];
}

/** Where {@link chargeOnce} charges: the store decided in, and the user's store itself. */
export interface ChargeTarget {
  store: Store;
  userStore: Store;
}

/**
 * Consumes every charge or none. Keys this request was already charged for (e.g. a global
 * and a per-route limiter with the same limit) are reported, not charged again; each
 * admitted charge that is to be settled when the request ends (a cost, or a `costAfter`)
 * is pushed on `toHold` when given. `decide` charges the keys still to charge (default:
 * {@link consumeAt} for one, {@link consumeAll} for several; `mode: 'queue'` books them).
 */
// biome-ignore lint/complexity/useMaxParams: perf: per multi-limit request; positional
export function chargeOnce(
  target: ChargeTarget,
  charges: Charge[],
  now: number,
  ledger: Ledger | undefined,
  toHold?: Charge[],
  decide?: (todo: Charge[]) => Decision[] | Promise<Decision[]>,
): Decision[] | Promise<Decision[]> {
  const { store, userStore } = target;
  const todo: Charge[] = [];
  const decisions: (Decision | undefined)[] = new Array(charges.length);
  for (let i = 0; i < charges.length; i++) {
    const e = charges[i]!;
    const previous = chargedFor(ledger, userStore, e.keySpace.prefix, e.subject);
    if (previous !== undefined) decisions[i] = previous;
    else todo.push(e);
  }
  const record = (results: Decision[]): Decision[] => {
    let j = 0;
    for (let i = 0; i < charges.length; i++) {
      if (decisions[i] === undefined) {
        const d = results[j++]!;
        decisions[i] = d;
        remember(ledger, userStore, charges[i]!.keySpace.prefix, charges[i]!.subject, d);
        const e = charges[i]!;
        if (toHold !== undefined && d.allowed && (e.cost > 0 || e.costAfter !== undefined))
          toHold.push(e);
      }
    }
    return decisions as Decision[];
  };
  if (todo.length === 0) return decisions as Decision[];
  if (decide !== undefined) {
    const decided = decide(todo);
    return decided instanceof Promise ? decided.then(record) : record(decided);
  }
  if (todo.length === 1) {
    const e = todo[0]!;
    const one = consumeAt(store, e, e.cost, now);
    return one instanceof Promise ? one.then((d) => record([d])) : record([one]);
  }
  const all = consumeAll(store, todo, now);
  return all instanceof Promise ? all.then(record) : record(all);
}
