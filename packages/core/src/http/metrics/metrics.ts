import type { Decision } from '../../algorithms/decision.js';
import { SluiceConfigError } from '../../common/errors.js';
import { decidedWithoutStore } from '../../store-failure/store-failure.js';
import type { Store, StoreRequest } from '../../stores/store.js';
import type { MeterLike, MeterProviderLike, MetricAttributes } from './meter.js';
import { loadOpenTelemetryApi } from './otel-loader.js';

/**
 * OpenTelemetry metrics of the HTTP limiters, recorded through
 * `@opentelemetry/api`, an **optional** peer dependency: it is loaded (a guarded `require`)
 * when a limiter with `metrics: true` is created; without it nothing is recorded and
 * nothing fails. OpenTelemetry has no rate-limit semantic convention yet; the names follow
 * its general naming rules (dotted, unit in `unit`, not in the name), after ASP.NET Core's
 * `aspnetcore.rate_limiting.*` metrics.
 *
 * | instrument | kind | unit | attributes |
 * | --- | --- | --- | --- |
 * | `sluice.requests` | asynchronous counter (a monotonic sum) | `{request}` | `sluice.limit`, `sluice.result` |
 * | `sluice.store.duration` | histogram | `s` | none |
 * | `sluice.leases` | up-down counter | `{lease}` | `sluice.limit` |
 * | `sluice.denials.top` | observable gauge | `{request}` | `sluice.rank` (1..10; denials of this process's most-denied subjects, never their ids) |
 *
 * `sluice.requests` is counted in process (a number added per request) and reported when
 * the reader collects: a synchronous `Counter.add` with two attributes costs about 1 µs
 * on the SDK (measured, @opentelemetry/sdk-metrics 2.12), more than a whole decision. The
 * key (user id, IP, `Limit.by` subject) is never an attribute: only the limit's name.
 */

/** The `sluice.result` attribute of `sluice.requests`. */
export type RequestResult = 'allowed' | 'limited' | 'shadow_limited' | 'store_error';

/**
 * The `metrics` option:
 * - `false` (default): nothing recorded, `@opentelemetry/api` never loaded;
 * - `true`: record on the global meter provider of `@opentelemetry/api`
 *   (`metrics.getMeter('@sluice/core')`): register the SDK's provider **before** creating
 *   the middleware (the API hands out a no-op meter until then). Without the package
 *   installed, one warning (`logger`) and nothing recorded;
 * - `{ meterProvider }`: record on this provider (e.g. a test's `MeterProvider` with an
 *   in-memory reader); `@opentelemetry/api` is not loaded.
 */
export type MetricsOption = boolean | { meterProvider: MeterProviderLike };

/** The meter name (OpenTelemetry instrumentation scope) sluice records under. */
export const METER_NAME = '@sluice/core';

let warnedMissing = false;

/**
 * Parses the `metrics` option into the limiter's {@link HttpMetrics}, or `undefined` when
 * nothing is to be recorded.
 * @throws {@link SluiceConfigError} naming `metrics` or `metrics.meterProvider`.
 */
export function createHttpMetrics(
  option: unknown,
  logger: { warn(message: string): void },
): HttpMetrics | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) {
    const api = loadOpenTelemetryApi();
    if (api === undefined) {
      if (!warnedMissing) {
        warnedMissing = true;
        logger.warn(
          'sluice: metrics: true but @opentelemetry/api is not installed; nothing is recorded',
        );
      }
      return undefined;
    }
    return new HttpMetrics(api.metrics.getMeter(METER_NAME));
  }
  if (option === null || typeof option !== 'object') {
    throw new SluiceConfigError('metrics', option, 'true, false or { meterProvider }');
  }
  const provider = (option as { meterProvider?: unknown }).meterProvider;
  if (
    provider === null ||
    typeof provider !== 'object' ||
    typeof (provider as MeterProviderLike).getMeter !== 'function'
  ) {
    throw new SluiceConfigError(
      'metrics.meterProvider',
      provider,
      'an OpenTelemetry MeterProvider (an object with getMeter(name))',
    );
  }
  return new HttpMetrics((provider as MeterProviderLike).getMeter(METER_NAME));
}

const RESULTS: readonly RequestResult[] = ['allowed', 'limited', 'shadow_limited', 'store_error'];
const ALLOWED = 0;
const LIMITED = 1;
const SHADOW_LIMITED = 2;
const STORE_ERROR = 3;

/** Limit names counted apart; beyond, new names are counted under `'(other)'`. */
const MAX_LIMIT_NAMES = 1000;

/**
 * The instruments of one meter, shared by every limiter recording on it, so that two
 * limiters with the same limit name add up in one series.
 */
class MeterInstruments {
  /** Requests by limit name: counts indexed as {@link RESULTS}. */
  readonly counts = new Map<string, Float64Array>();
  readonly duration: { record(value: number, attributes?: MetricAttributes): void };
  readonly leases: { add(value: number, attributes?: MetricAttributes): void };
  readonly #leaseAttributes = new Map<string, MetricAttributes>();

  constructor(meter: MeterLike) {
    this.duration = meter.createHistogram('sluice.store.duration', {
      description: 'Time a rate-limit decision waited for its store',
      unit: 's',
    });
    this.leases = meter.createUpDownCounter('sluice.leases', {
      description: 'Concurrency-limit leases held (requests in flight under Limit.concurrent)',
      unit: '{lease}',
    });
    const requests = meter.createObservableCounter('sluice.requests', {
      description: 'Requests decided by a rate limit, by limit name and result',
      unit: '{request}',
    });
    requests.addCallback((result) => {
      for (const [name, counts] of this.counts) {
        for (let i = 0; i < RESULTS.length; i++) {
          if (counts[i]! > 0)
            result.observe(counts[i]!, { 'sluice.limit': name, 'sluice.result': RESULTS[i]! });
        }
      }
    });
  }

  /** Operations snapshots whose most-denied counts `sluice.denials.top` reports. */
  readonly tops = new Set<{ denials: { top(n: number): { count: number }[] } | undefined }>();

  /**
   * `sluice.denials.top` (an observable gauge, made on the first snapshot when the meter
   * has `createObservableGauge`): the denial counts of this process's 10 most-denied
   * subjects (`LimitOperations.top`), by rank (`sluice.rank` 1..10), never their ids.
   */
  watchTop(
    meter: MeterLike,
    snapshot: { denials: { top(n: number): { count: number }[] } | undefined },
  ): void {
    if (this.tops.size === 0) {
      const create = (meter as Partial<GaugeMeter>).createObservableGauge;
      if (typeof create !== 'function') return;
      const gauge = create.call(meter, 'sluice.denials.top', {
        description: "Denials of this process's most-denied subjects, by rank (no ids)",
        unit: '{request}',
      });
      gauge.addCallback((result) => {
        const counts = new Float64Array(TOP_RANKS);
        for (const s of this.tops) {
          const rows = s.denials?.top(TOP_RANKS) ?? [];
          for (let i = 0; i < rows.length; i++) counts[i]! += rows[i]!.count;
        }
        for (let i = 0; i < TOP_RANKS; i++) {
          if (counts[i]! > 0) result.observe(counts[i]!, { 'sluice.rank': String(i + 1) });
        }
      });
    }
    this.tops.add(snapshot);
  }

  countsOf(name: string): Float64Array {
    let counts = this.counts.get(name);
    if (counts === undefined) {
      const series = this.counts.size < MAX_LIMIT_NAMES ? name : '(other)';
      counts = this.counts.get(series);
      if (counts === undefined) {
        counts = new Float64Array(RESULTS.length);
        this.counts.set(series, counts);
      }
    }
    return counts;
  }

  leaseAttributes(name: string): MetricAttributes {
    let a = this.#leaseAttributes.get(name);
    if (a === undefined) {
      a = { 'sluice.limit': name };
      if (this.#leaseAttributes.size < MAX_LIMIT_NAMES) this.#leaseAttributes.set(name, a);
    }
    return a;
  }
}

/** Ranks `sluice.denials.top` reports. */
const TOP_RANKS = 10;

/** A meter with OpenTelemetry's `createObservableGauge` (optional in {@link MeterLike}). */
interface GaugeMeter {
  createObservableGauge(
    name: string,
    options?: { description?: string; unit?: string },
  ): ReturnType<MeterLike['createObservableCounter']>;
}

const instrumentsByMeter = new WeakMap<MeterLike, MeterInstruments>();

/**
 * What one HTTP limiter records (see the table above). Made by {@link createHttpMetrics}
 * from the `metrics` option; reached as `HttpLimiter.metrics`.
 */
export class HttpMetrics {
  readonly #instruments: MeterInstruments;
  /** The counts of the last limit name seen (most limiters have one). */
  #lastName: string | undefined;
  #lastCounts: Float64Array | undefined;

  readonly #meter: MeterLike;

  constructor(meter: MeterLike) {
    let instruments = instrumentsByMeter.get(meter);
    if (instruments === undefined) {
      instruments = new MeterInstruments(meter);
      instrumentsByMeter.set(meter, instruments);
    }
    this.#instruments = instruments;
    this.#meter = meter;
  }

  /** Reports `snapshot`'s most-denied counts as `sluice.denials.top` (no ids). */
  watchTop(snapshot: { denials: { top(n: number): { count: number }[] } | undefined }): void {
    if (this.#instruments.tops.has(snapshot)) return;
    this.#instruments.watchTop(this.#meter, snapshot);
  }

  /**
   * Counts one decided request in `sluice.requests`: `store_error` when any decision was
   * made by `onStoreError` because the store failed, else `shadow_limited` (denied by the
   * limit, admitted by `mode: 'shadow'`), `limited` or `allowed`.
   *
   * @param name - the name of the limit reported (the most restrictive one).
   * @param decision - the reported decision; `decisions` every limit's, when several.
   */
  request(
    name: string,
    decision: Decision,
    decisions: readonly Decision[] | undefined,
    shadow: boolean,
  ): void {
    let counts: Float64Array;
    if (name === this.#lastName) counts = this.#lastCounts!;
    else {
      counts = this.#instruments.countsOf(name);
      this.#lastName = name;
      this.#lastCounts = counts;
    }
    let result = decision.allowed ? ALLOWED : shadow ? SHADOW_LIMITED : LIMITED;
    if (decidedWithoutStore(decision, decisions)) result = STORE_ERROR;
    counts[result]!++;
  }

  /** Records one store call's duration in **seconds** in `sluice.store.duration`. */
  storeDuration(seconds: number): void {
    this.#instruments.duration.record(seconds);
  }

  /**
   * The hook for concurrency limits (`Limit.concurrent(n)`): adds `delta` to
   * `sluice.leases` for the limit named `name`: `+1` when a request takes a lease,
   * `-1` when it gives it back (its response finished or its connection closed) or the
   * lease expired. Called by the pipeline that takes and releases leases.
   *
   * @example limiter.metrics?.lease('exports', +1);
   */
  lease(name: string, delta: number): void {
    const instruments = this.#instruments;
    instruments.leases.add(delta, instruments.leaseAttributes(name));
  }

  /**
   * `store` with every decision timed into `sluice.store.duration` (from the call until the
   * decision is there: when its promise resolves, for an asynchronous store). Its key spaces
   * (`Store.scope`) are timed too; any other method (`reset`…) is the store's own, bound.
   */
  timed(store: Store): Store {
    // Every method of the store, bound, so a method added to stores later still works.
    const timed: Record<string, unknown> = {};
    for (let o: object | null = store; o !== null && o !== Object.prototype; ) {
      for (const name of Object.getOwnPropertyNames(o)) {
        if (name === 'constructor' || Object.hasOwn(timed, name)) continue;
        const d = Object.getOwnPropertyDescriptor(o, name);
        if (typeof d?.value === 'function') timed[name] = d.value.bind(store);
      }
      o = Object.getPrototypeOf(o) as object | null;
    }
    const t = timed as unknown as Store;
    t.consume = (key, algorithm, cost, nowMs) => {
      const start = performance.now();
      return this.#timeDecision(start, store.consume(key, algorithm, cost, nowMs));
    };
    if (typeof store.consumeAll === 'function') {
      const all = store.consumeAll;
      t.consumeAll = (requests: readonly StoreRequest[], nowMs: number) => {
        const start = performance.now();
        return this.#timeDecision(start, all.call(store, requests, nowMs));
      };
    }
    if (typeof store.scope === 'function') {
      const keySpaceOf = store.scope;
      t.scope = (prefix: string) => this.timed(keySpaceOf.call(store, prefix));
    }
    return t;
  }

  /** `result` once it is there, its time since `start` recorded as the store's duration. */
  #timeDecision<T>(start: number, result: T | Promise<T>): T | Promise<T> {
    if (!(result instanceof Promise)) {
      this.storeDuration((performance.now() - start) / 1000);
      return result;
    }
    return result.then((value) => {
      this.storeDuration((performance.now() - start) / 1000);
      return value;
    });
  }
}
