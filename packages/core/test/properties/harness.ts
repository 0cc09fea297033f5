// Shared trace generators and drivers for the property tests.
import { EPOCH } from '@sluice/test-kit';
import fc from 'fast-check';
import { algorithmKeyTag } from '../../src/algorithms/key-tag.js';
import { type Decision, MemoryStore, RateLimiter } from '../../src/index.js';
import { type Algorithm, expiryOf, type State } from '../../src/store-api.js';
import type { Model, ModelDecision, Ratio } from './models.js';

/** Runs per property; the whole folder stays well under a minute on 2 cores. */
export const RUNS = Number(process.env.SLUICE_PROPERTY_RUNS ?? 300);

export interface TraceStep {
  /** ms since the previous request (0 = same instant). */
  dt: number;
  /** units asked for (0 = peek). */
  cost: number;
}

/**
 * Time deltas at the scale of the algorithm (`scale` ms: the emission interval or the
 * window): many zeros (bursts), tiny steps, steps around the scale, and long idles.
 */
export function deltaArb(scale: number): fc.Arbitrary<number> {
  const s = Math.max(1, Math.ceil(scale));
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: s }), weight: 3 },
    { arbitrary: fc.integer({ min: 1, max: 3 }).map((k) => k * s), weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 4 * s }), weight: 1 },
  );
}

/** Costs: peeks, single units, anything up to the limit, the limit, and above it. */
export function costArb(limit: number): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constant(0), weight: 2 },
    { arbitrary: fc.constant(1), weight: 5 },
    { arbitrary: fc.integer({ min: 0, max: limit }), weight: 2 },
    { arbitrary: fc.constant(limit), weight: 1 },
    { arbitrary: fc.integer({ min: limit + 1, max: limit + 3 }), weight: 1 },
  );
}

export function traceArb(scale: number, limit: number, maxLength = 60): fc.Arbitrary<TraceStep[]> {
  return fc.array(fc.record({ dt: deltaArb(scale), cost: costArb(limit) }), {
    minLength: 1,
    maxLength,
  });
}

/** One decision as observed through a limiter, with the stored state around it. */
export interface Observed {
  now: number;
  cost: number;
  decision: Decision;
  /** The key's stored state before the request (deep copy). */
  before: State | undefined;
  /** The key's stored state after the request (deep copy). */
  after: State | undefined;
}

const KEY = 'k';

export function copyState(state: State | undefined): State | undefined {
  return Array.isArray(state) ? [...state] : state;
}

/**
 * Drives a trace through `RateLimiter` on a `MemoryStore` with an injected clock, starting
 * at `start` (default {@link EPOCH}).
 */
export async function drive(
  algorithm: Algorithm,
  steps: readonly TraceStep[],
  start = EPOCH,
): Promise<Observed[]> {
  let now = start;
  // A small store: one key is used, and lru-cache allocates its index up front (the
  // default 100 000 keys costs ~10 ms per store).
  const store = new MemoryStore({ maxKeys: 8 });
  const limiter = new RateLimiter({ algorithm, store, clock: () => now });
  // The store key: the prefix, marked with the algorithm unless GCRA (`sl@fw:k`).
  const STORE_KEY = `sl${algorithmKeyTag(algorithm)}:${KEY}`;
  const out: Observed[] = [];
  for (const { dt, cost } of steps) {
    now += dt;
    const before = copyState(store.inspect(STORE_KEY));
    const decision = await limiter.consume(KEY, { cost });
    out.push({ now, cost, decision, before, after: copyState(store.inspect(STORE_KEY)) });
  }
  return out;
}

/** Drives a trace directly through `algorithm.step`, threading the state by hand. */
export function driveSteps(
  algorithm: Algorithm,
  steps: readonly TraceStep[],
  start = EPOCH,
): Observed[] {
  let now = start;
  let state: State | undefined;
  const out: Observed[] = [];
  for (const { dt, cost } of steps) {
    now += dt;
    const before = copyState(state);
    const result = algorithm.step(state, now, cost);
    if (result.state !== undefined) state = result.state;
    out.push({ now, cost, decision: result.decision, before, after: copyState(state) });
  }
  return out;
}

/**
 * A fresh limiter and store fed `history` (the requests before the one being replayed),
 * then asked for `cost` at `at`: "the same state" rebuilt through the public API.
 */
export async function replayAt(
  algorithm: Algorithm,
  history: readonly Observed[],
  at: number,
  cost: number,
): Promise<Decision> {
  let now = EPOCH;
  const limiter = new RateLimiter({
    algorithm,
    store: new MemoryStore({ maxKeys: 8 }),
    clock: () => now,
  });
  for (const h of history) {
    now = h.now;
    await limiter.consume(KEY, { cost: h.cost });
  }
  now = at;
  return limiter.consume(KEY, { cost });
}

/** The model's decision as the `Decision` an exact implementation must return. */
export function expected(d: ModelDecision): Decision {
  return {
    allowed: d.allowed,
    limit: d.limit,
    remaining: d.remaining,
    retryAfterMs: d.retryAfterMs === -1 ? -1 : d.retryAfterMs.toNumber(),
    resetAfterMs: d.resetAfterMs.toNumber(),
    cost: d.cost,
  };
}

/**
 * Asserts the observed decisions equal the model's, step by step. Times must be the double
 * nearest to the model's exact value; with `timeUlps` > 0 a fractional time may instead be
 * that many doubles away from it, as long as it rounds up (ceil) to the same whole ms.
 */
export function expectSameAsModel(
  observed: readonly Observed[],
  model: Model,
  { timeUlps = 0 }: { timeUlps?: number } = {},
): void {
  for (let i = 0; i < observed.length; i++) {
    const o = observed[i]!;
    const exact = model.step(o.now, o.cost);
    const want = expected(exact);
    const got = o.decision;
    const timesMatch =
      timeUlps === 0
        ? Object.is(got.retryAfterMs, want.retryAfterMs) &&
          Object.is(got.resetAfterMs, want.resetAfterMs)
        : closeTime(got.retryAfterMs, exact.retryAfterMs, timeUlps) &&
          closeTime(got.resetAfterMs, exact.resetAfterMs, timeUlps);
    if (
      got.allowed !== want.allowed ||
      got.limit !== want.limit ||
      got.remaining !== want.remaining ||
      got.cost !== want.cost ||
      !timesMatch
    ) {
      throw new Error(
        `step ${i} (t=EPOCH+${o.now - EPOCH}, cost ${o.cost}): got ${JSON.stringify(got)}, ` +
          `model says ${JSON.stringify(want)}`,
      );
    }
  }
}

function closeTime(actual: number, exact: Ratio | -1, ulps: number): boolean {
  if (exact === -1) return actual === -1;
  let nearest = exact.toNumber();
  if (Object.is(actual, nearest)) return true;
  if (BigInt(Math.ceil(actual)) !== exact.ceil()) return false;
  for (let k = 0; k < ulps; k++) {
    nearest = actual > nearest ? nextUp(nearest) : nextDown(nearest);
    if (actual === nearest) return true;
  }
  return false;
}

const f64 = new Float64Array(1);
const u64 = new BigInt64Array(f64.buffer);

/** The next double above a positive finite `x`. */
function nextUp(x: number): number {
  f64[0] = x;
  u64[0] = u64[0]! + 1n;
  return f64[0];
}

/** The next double below a positive finite `x`. */
function nextDown(x: number): number {
  f64[0] = x;
  u64[0] = u64[0]! - 1n;
  return f64[0];
}

/**
 * The generic decision checks every algorithm must pass on every observed step:
 * - shape: remaining an integer in [0, limit], retryAfterMs 0 iff allowed, -1 iff
 *   cost > limit, > 0 otherwise; resetAfterMs >= 0;
 * - denied requests and peeks consume nothing (stored state unchanged, step writes nothing);
 * - retryAfterMs exact: denied at now + ceil(retry) - 1, allowed at now + ceil(retry);
 * - resetAfterMs exact: a peek at now + ceil(reset) shows remaining == limit, and one at
 *   now + ceil(reset) - 1 does not (when reset > 0);
 * - remaining exact: right after, at the same instant, cost == remaining is allowed and
 *   cost == remaining + 1 is denied.
 */
export function checkDecisionInvariants(algorithm: Algorithm, observed: readonly Observed[]): void {
  const limit = algorithm.limit;
  for (let i = 0; i < observed.length; i++) {
    const { now, cost, decision: d, before, after } = observed[i]!;
    const where = `step ${i} (t=EPOCH+${now - EPOCH}, cost ${cost}, decision ${JSON.stringify(d)})`;
    const fail = (what: string) => {
      throw new Error(`${where}: ${what}`);
    };
    if (d.limit !== limit || d.cost !== cost) fail('limit/cost echoed wrong');
    if (!Number.isInteger(d.remaining) || d.remaining < 0 || d.remaining > limit) {
      fail('remaining is not an integer in [0, limit]');
    }
    if (!(d.resetAfterMs >= 0)) fail('resetAfterMs < 0');
    if (d.allowed) {
      if (d.retryAfterMs !== 0) fail('allowed with retryAfterMs != 0');
      if (cost > limit) fail('admitted cost > limit');
    } else {
      if (cost > limit ? d.retryAfterMs !== -1 : !(d.retryAfterMs > 0)) {
        fail('retryAfterMs is not -1 exactly when cost > limit, > 0 otherwise');
      }
    }

    // Denied requests and peeks consume nothing.
    if (!d.allowed || cost === 0) {
      // (A state whose expiry is <= now is no state at all: the store may drop it.)
      if (!sameState(live(before, now), live(after, now))) {
        fail(`state changed: ${show(before)} -> ${show(after)}`);
      }
      if (algorithm.step(copyState(before), now, cost).state !== undefined) {
        fail('step returned a state to write');
      }
    }

    // retryAfterMs: exact, on the state the request saw.
    if (!d.allowed && d.retryAfterMs > 0) {
      const wait = Math.ceil(d.retryAfterMs);
      if (algorithm.step(copyState(before), now + wait - 1, cost).decision.allowed) {
        fail(`allowed already at now + ${wait - 1}`);
      }
      if (!algorithm.step(copyState(before), now + wait, cost).decision.allowed) {
        fail(`still denied at now + ${wait}`);
      }
    }

    // resetAfterMs: exact, on the state left behind.
    const reset = Math.ceil(d.resetAfterMs);
    const full = algorithm.step(copyState(after), now + reset, 0).decision;
    if (full.remaining !== limit) fail(`remaining ${full.remaining} at now + ${reset}`);
    if (full.resetAfterMs !== 0) fail(`resetAfterMs ${full.resetAfterMs} at now + ${reset}`);
    if (reset > 0) {
      const early = algorithm.step(copyState(after), now + reset - 1, 0).decision;
      if (early.remaining === limit) fail(`already full at now + ${reset - 1}`);
    }

    // remaining: exact, at the same instant.
    const peek = algorithm.step(copyState(after), now, 0).decision;
    if (peek.remaining !== d.remaining) fail(`a peek right after shows ${peek.remaining}`);
    if (!algorithm.step(copyState(after), now, d.remaining).decision.allowed) {
      fail('cost == remaining denied right after');
    }
    if (algorithm.step(copyState(after), now, d.remaining + 1).decision.allowed) {
      fail('cost == remaining + 1 allowed right after');
    }
  }
}

function live(state: State | undefined, now: number): State | undefined {
  return state !== undefined && expiryOf(state) > now ? state : undefined;
}

function sameState(a: State | undefined, b: State | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  }
  return Object.is(a, b);
}

function show(state: State | undefined): string {
  return JSON.stringify(state) ?? 'undefined';
}

/** The admitted (time, cost) pairs of a trace, cost > 0 only. */
export function admitted(observed: readonly Observed[]): Array<{ t: number; cost: number }> {
  return observed
    .filter((o) => o.decision.allowed && o.cost > 0)
    .map((o) => ({ t: o.now, cost: o.cost }));
}

/**
 * retryAfterMs through the public API: for the last few denials of a trace (with
 * retryAfterMs > 0), a fresh limiter and store fed the same history decide the same
 * request as denied at now + ceil(retry) - 1 and allowed at now + ceil(retry).
 */
export async function checkRetryByReplay(
  algorithm: Algorithm,
  observed: readonly Observed[],
  howMany = 3,
): Promise<void> {
  const denials = observed
    .map((o, i) => ({ o, i }))
    .filter(({ o }) => !o.decision.allowed && o.decision.retryAfterMs > 0)
    .slice(-howMany);
  for (const { o, i } of denials) {
    const wait = Math.ceil(o.decision.retryAfterMs);
    const history = observed.slice(0, i);
    const early = await replayAt(algorithm, history, o.now + wait - 1, o.cost);
    const onTime = await replayAt(algorithm, history, o.now + wait, o.cost);
    if (early.allowed || !onTime.allowed) {
      throw new Error(
        `step ${i} (t=EPOCH+${o.now - EPOCH}, cost ${o.cost}): retryAfterMs ${o.decision.retryAfterMs} ` +
          `but replay gives allowed=${early.allowed} at +${wait - 1}, allowed=${onTime.allowed} at +${wait}`,
      );
    }
  }
}

/** Window-algorithm parameters: small and odd windows as well as real ones. */
export const windowParamsArb = fc.record({
  limit: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 12 }), weight: 4 },
    { arbitrary: fc.integer({ min: 1, max: 100 }), weight: 1 },
  ),
  windowMs: fc.oneof(fc.constantFrom(1, 2, 7, 1000, 60_000), fc.integer({ min: 1, max: 5000 })),
});

/** Parameters drawn by {@link windowParamsArb}. */
export interface WindowParams {
  limit: number;
  windowMs: number;
}

/** Window parameters and a trace at the window's scale. */
export const windowScenarioArb: fc.Arbitrary<{ p: WindowParams; steps: TraceStep[] }> =
  windowParamsArb.chain((p) => traceArb(p.windowMs, p.limit).map((steps) => ({ p, steps })));

/**
 * The model-equality test of a window algorithm, named `name`: on every scenario of
 * {@link windowScenarioArb}, the decisions through the limiter and store, and through
 * `step()` threaded by hand, equal the model's. `newModel` makes a fresh model for each
 * (a model is mutable: it keeps the state of the trace it was stepped through).
 */
export function itDecidesLikeWindowModel(
  name: string,
  build: (p: WindowParams) => Algorithm,
  newModel: (p: WindowParams) => Model,
  options?: { timeUlps?: number },
): void {
  it(name, async () => {
    await fc.assert(
      fc.asyncProperty(windowScenarioArb, async ({ p, steps }) => {
        const algorithm = build(p);
        expectSameAsModel(await drive(algorithm, steps), newModel(p), options);
        // step() threaded by hand decides the same as through the limiter and store.
        expectSameAsModel(driveSteps(algorithm, steps), newModel(p), options);
      }),
      { numRuns: RUNS },
    );
  });
}

/**
 * The exact-times test: on every scenario of `scenarioArb`, the decisions of `build(scenario)`
 * through the limiter and store pass {@link checkDecisionInvariants} and
 * {@link checkRetryByReplay}; `alsoCheck`, when given, checks more on the same run.
 */
export function itHasExactTimes<S extends { steps: TraceStep[] }>(
  scenarioArb: fc.Arbitrary<S>,
  build: (scenario: S) => Algorithm,
  alsoCheck?: (scenario: S, observed: readonly Observed[]) => void,
): void {
  it('retryAfterMs, resetAfterMs and remaining are exact; denials consume nothing', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        const algorithm = build(scenario);
        const observed = await drive(algorithm, scenario.steps);
        checkDecisionInvariants(algorithm, observed);
        await checkRetryByReplay(algorithm, observed);
        alsoCheck?.(scenario, observed);
      }),
      { numRuns: RUNS },
    );
  });
}
