import type { Decision } from '../algorithms/decision.js';
import { waitOf } from '../algorithms/decision.js';
import type { Store } from '../stores/store.js';
import type { HttpVerdict } from './verdict.js';

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
  /** The user's store, the plan's origin (limiters on different stores never share a key). */
  origin: Store;
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

/** The decision this request was already charged for `prefix + subject` in `origin`, if any. */
export function chargedFor(
  ledger: Ledger | undefined,
  origin: Store,
  prefix: string,
  subject: string,
): Decision | undefined {
  for (let c = ledger?.[kCharged]; c !== undefined; c = c.next) {
    if (c.subject === subject && c.prefix === prefix && c.origin === origin) return c.decision;
  }
  return undefined;
}

/** Records an admitted charge of this request for `prefix + subject` in `origin`. */
export function remember(
  ledger: Ledger | undefined,
  origin: Store,
  prefix: string,
  subject: string,
  decision: Decision,
): void {
  if (ledger !== undefined && decision.allowed) {
    ledger[kCharged] = { origin, prefix, subject, decision, next: ledger[kCharged] };
  }
}

/**
 * Whether `a` is more restrictive than `b`: a denial beats an admission; of two denials
 * the longer wait (a request that can never pass beats any); of two admissions the fewer units remaining.
 */
export function moreRestrictive(a: Decision, b: Decision): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  return a.allowed ? a.remaining < b.remaining : waitOf(a) > waitOf(b);
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
