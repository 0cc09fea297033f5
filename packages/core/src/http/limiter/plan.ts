import type { AdaptiveAlgorithm } from '../../adaptive/adaptive-gate.js';
import type { AdaptivePriority } from '../../adaptive/options.js';
import type { Algorithm } from '../../algorithms/algorithm.js';
import { calendarText } from '../../algorithms/calendar.js';
import { SluiceConfigError } from '../../common/errors.js';
import { keySegment } from '../../keys/key-segment.js';
import { limitKeyPrefix, limitName } from '../../keys/limit-key-prefix.js';
import {
  type CostAfter,
  calendarAlgorithmOf,
  type Limit,
  limitAlgorithm,
} from '../../limits/limit.js';
import { checkCostAfter } from '../../limits/limit-checks.js';
import type { RequestView } from '../../limits/request-view.js';
import { httpOperations, operationsSnapshot } from '../../operations/registry.js';
import type { OperationsSnapshot, Override } from '../../operations/snapshot.js';
import { trackKeySpaces } from '../../stores/key-spaces.js';
import { keySpaceView, type Store } from '../../stores/store.js';
import type { HttpConfig } from '../options/options.js';
import { ipSubject, subnetOf } from '../request/keys.js';
import { ceilSeconds, type LimitPolicy } from '../verdict/headers.js';
import type { Charge, KeySpace } from './charge.js';
import { checkQueueable } from './queue.js';

/** `<prefix>:<limit name>:<route>:ip:` and `…:user:`. */
export interface RouteKeySpaces {
  ip: KeySpace;
  user: KeySpace;
}

/**
 * A planned limit: one limit of a limiter, ready for requests (its algorithm, key spaces and
 * cost); its `name` and `windowSeconds` go in headers.
 */
export interface PlannedLimit extends LimitPolicy {
  /** `<prefix>:<limit name>:`, the key space of the `key` option's subjects. */
  keySpace: KeySpace;
  /** The whole key when the limit has its own subject (`Limit.by`, replacing route and user/IP). */
  byKeySpace: KeySpace | undefined;
  /** The key spaces of `<prefix>:<limit name>:<route>:` by route string (see `routeKeySpaces`). */
  routes: Map<string, RouteKeySpaces>;
  algorithm: Algorithm;
  cost: number;
  /** The quota it was made for (`Limit.maxAttempts` per `Limit.periodMs`). */
  maxAttempts: number;
  periodMs: number;
  /** Its penalty or concurrency, as text (`kindKeyOf`): '' for a plain rate limit. */
  kindKey: string;
  /** How its cost is settled from the response (`Limit.costAfter`), or `undefined`. */
  costAfter: CostAfter | undefined;
  /** A `Limit.adaptive`: decided in process by its gate, keyed by the request's priority. */
  adaptiveLimit: AdaptiveAlgorithm | undefined;
  /** A calendar quota's algorithm for another quota (an override's), or `undefined`. */
  calendarAlgorithm: ((maxAttempts: number) => Algorithm) | undefined;
}

/** Routes whose key spaces a limit keeps (routes are patterns, so few; this bounds odd adapters). */
const MAX_CACHED_ROUTES = 1000;

/** Per-request limits a plan keeps prepared, with their routes' key spaces, counted together. */
const MAX_CACHED_LIMITS = 1000;

/** What a {@link LimitPlan} is made of. */
export interface LimitPlanOptions {
  /** The store it decides in: the user's, timed when the `metrics` option is on. */
  store: Store;
  /** The user's store itself: what "the same key" means across limiters (charges.ts). */
  userStore: Store;
  config: HttpConfig<unknown>;
  /** The limiter's algorithms by quota, shared by its plans. */
  algorithms: Map<string, Algorithm>;
}

/**
 * A limiter's limits prepared for one store: names, algorithms, policies and key spaces,
 * computed once. A limiter has one plan per store it decides in (its `store` option, or
 * each application's default store).
 */
export class LimitPlan {
  readonly store: Store;
  /** The user's store itself: what "the same key" means across limiters (charges.ts). */
  readonly userStore: Store;
  /** The limits when they do not depend on the request, prepared once. */
  readonly static: PlannedLimit[] | undefined;
  readonly #config: HttpConfig<unknown>;
  /** The limiter's algorithms by quota, shared by its plans. */
  readonly #algorithms: Map<string, Algorithm>;
  /** Per-request limits already prepared, by `Limit.name`; counted in `#perRequestCount`. */
  readonly #perRequest = new Map<string | undefined, PlannedLimit[]>();
  #perRequestCount = 0;
  /**
   * The operator entries of this store and prefix (`LimitOperations`), or `undefined` when
   * the store has no `operations`: shared by every limiter on them.
   */
  readonly operations: OperationsSnapshot | undefined;
  /** Planned limits under an override, by override and original: made once each. */
  readonly #overridden = new WeakMap<Override, Map<PlannedLimit, PlannedLimit>>();

  constructor({ store, userStore, config, algorithms }: LimitPlanOptions) {
    this.store = store;
    this.userStore = userStore;
    this.#config = config;
    this.#algorithms = algorithms;
    const limits = config.limits;
    this.static = limits.isStatic
      ? this.#prepare(limits.limitsFor(undefined as never) as readonly Limit[], true)
      : undefined;
    this.operations = operationsSnapshot(userStore.operations, config.prefix);
    if (this.static !== undefined) {
      this.operations?.registerPlan(this);
      trackKeySpaces(userStore, this);
    }
  }

  /**
   * Its static limits' key prefixes and algorithms, for `MemoryStore#dump()`'s fingerprint
   * (adaptive limits keep no state in the store).
   */
  keySpaces(): [string, string][] {
    return (this.static ?? [])
      .filter((p) => p.adaptiveLimit === undefined)
      .map((p): [string, string] => [p.keySpace.prefix, p.algorithm.description]);
  }

  /** `planned` under `overrides` (operated.ts `overriddenLimits`, with this plan's caches). */
  overridden(planned: PlannedLimit[], overrides: readonly Override[]): PlannedLimit[] {
    return httpOperations().overriddenLimits(
      planned,
      overrides,
      this.#overridden,
      this.#algorithms,
      this.#config,
    );
  }

  /** The planned limits of `view`'s request; a promise when a resolver is async. */
  limitsFor(view: RequestView): PlannedLimit[] | Promise<PlannedLimit[]> {
    if (this.static !== undefined) return this.static;
    const limits = this.#config.limits.limitsFor(view);
    if (limits instanceof Promise) return limits.then((l) => this.#prepare(l, false));
    return this.#prepare(limits, false);
  }

  /**
   * The key of `view` under `p`: `<prefix>:<limit name>:` + the `key` option's subject, or
   * `Limit.by`'s whole key, or `<route>:user:<id>` / `<route>:ip:<subject>`.
   */
  chargeOf(view: RequestView, p: PlannedLimit, custom: string | undefined): Charge {
    const { algorithm, cost, costAfter } = p;
    if (p.adaptiveLimit !== undefined) {
      return { keySpace: p.keySpace, subject: priorityOf(p.adaptiveLimit, view), algorithm, cost };
    }
    if (custom !== undefined)
      return { keySpace: p.keySpace, subject: custom, algorithm, cost, costAfter };
    if (p.byKeySpace !== undefined)
      return { keySpace: p.byKeySpace, subject: '', algorithm, cost, costAfter };
    const keySpaces = this.routeKeySpaces(p, view.route);
    return view.userId !== undefined
      ? {
          keySpace: keySpaces.user,
          subject: keySegment(String(view.userId)),
          algorithm,
          cost,
          costAfter,
        }
      : {
          keySpace: keySpaces.ip,
          subject: ipSubject(view.ip, subnetOf(view, this.#config.ipv6Subnet)),
          algorithm,
          cost,
          costAfter,
        };
  }

  /** The key spaces of `<prefix>:<limit name>:<route>:`, made once per route and limit. */
  routeKeySpaces(p: PlannedLimit, route: string): RouteKeySpaces {
    let keySpaces = p.routes.get(route);
    if (keySpaces === undefined) {
      const prefix = `${p.keySpace.prefix}${keySegment(route)}:`;
      // Key spaces of a static limit last as long as the plan (bounded by MAX_CACHED_ROUTES);
      // a per-request limit's count against the plan's MAX_CACHED_LIMITS.
      const perRequest = this.static === undefined;
      const keep = perRequest
        ? this.#perRequestCount < MAX_CACHED_LIMITS
        : p.routes.size < MAX_CACHED_ROUTES;
      const lasting = keep && p.keySpace.store !== undefined;
      keySpaces = {
        ip: this.#keySpace(`${prefix}ip:`, lasting),
        user: this.#keySpace(`${prefix}user:`, lasting),
      };
      if (keep) {
        p.routes.set(route, keySpaces);
        if (perRequest) this.#perRequestCount++;
      }
    }
    return keySpaces;
  }

  /** The key space of `prefix`; with the store's own view of it when `lasting`. */
  #keySpace(prefix: string, lasting: boolean): KeySpace {
    return { prefix, store: lasting ? keySpaceView(this.store, prefix) : undefined };
  }

  /**
   * Limits of a static configuration last as long as the plan: prepared once, their key spaces
   * get store views. Per-request limits (a named limiter's function) are prepared once per
   * name, quota and cost (`#perRequestLimit`), their key spaces without store views.
   */
  #prepare(limits: readonly Limit[], lasting: boolean): PlannedLimit[] {
    const out: PlannedLimit[] = [];
    for (const limit of limits) {
      if (limit.unlimited) continue;
      const p = lasting ? this.#prepareLimit(limit, true) : this.#perRequestLimit(limit);
      // A `Limit.by` subject is the request's own: only its key space is made here.
      out.push(
        limit.subject === undefined
          ? p
          : {
              ...p,
              byKeySpace: this.#keySpace(p.keySpace.prefix + keySegment(limit.subject), false),
            },
      );
    }
    return out;
  }

  /**
   * The planned limit of a per-request limit: made on the first request with its name, quota
   * and cost, the only fields its keys and decisions depend on besides `Limit.by`; then
   * reused, with its route key spaces.
   */
  #perRequestLimit(limit: Limit): PlannedLimit {
    const cache = this.#perRequest;
    const same = cache.get(limit.name);
    if (same !== undefined) {
      for (let i = 0; i < same.length; i++) {
        const p = same[i]!;
        if (
          p.maxAttempts === limit.maxAttempts &&
          p.periodMs === limit.periodMs &&
          p.cost === limit.requestCost &&
          p.kindKey === kindKeyOf(limit) &&
          p.costAfter === limit.responseCost
        )
          return p;
      }
    }
    if (this.#perRequestCount >= MAX_CACHED_LIMITS) {
      cache.clear();
      this.#perRequestCount = 0;
    }
    const p = this.#prepareLimit(limit, false);
    const list = cache.get(limit.name);
    if (list === undefined) cache.set(limit.name, [p]);
    else list.push(p);
    this.#perRequestCount++;
    return p;
  }

  /** `limit`, ready for requests (without its `Limit.by` key space); store views when `lasting`. */
  #prepareLimit(limit: Limit, lasting: boolean): PlannedLimit {
    const kindKey = kindKeyOf(limit);
    const quota = `${limit.maxAttempts}/${limit.periodMs}${kindKey}`;
    const algorithms = this.#algorithms;
    let algorithm = algorithms.get(quota);
    if (algorithm === undefined) {
      if (algorithms.size >= MAX_CACHED_LIMITS) algorithms.clear();
      algorithm = limitAlgorithm(limit, this.#config.algorithmFactory)!;
      if (this.#config.outcome !== undefined && typeof algorithm.refund !== 'function') {
        throw new SluiceConfigError(
          'algorithm',
          algorithm.description,
          'an algorithm that can give back (refund) with skipSuccessfulRequests / skipFailedRequests',
        );
      }
      algorithms.set(quota, algorithm);
    }
    checkCostAfter(limit, algorithm);
    // `mode: 'queue'`: a limit that cannot book a future slot is an error, never 'enforce'.
    if (this.#config.queue !== undefined) checkQueueable(algorithm);
    const name = limitName(limit);
    const prefix = `${this.#config.prefix}:${keySegment(name)}:`;
    limit.adaptive?.useNodeLoopDelay();
    return {
      // An adaptive limit's charges go to its own in-process gate, whatever the store.
      // The one key rule of every front door (keys/limit-key-prefix.ts): `@<algorithm>`
      // after the prefix (none for GCRA), so a changed algorithm gets fresh keys.
      keySpace:
        limit.adaptive !== undefined
          ? // The id in the prefix: two adaptive limits of one name are still two (the ledger).
            { prefix: `${prefix}${limit.adaptive.id}:`, store: limit.adaptive.gate }
          : this.#keySpace(limitKeyPrefix(this.#config.prefix, algorithm, name), lasting),
      byKeySpace: undefined,
      routes: new Map(),
      algorithm,
      cost: limit.requestCost,
      maxAttempts: limit.maxAttempts,
      periodMs: limit.periodMs,
      name,
      windowSeconds: ceilSeconds(limit.periodMs),
      concurrent: limit.concurrent,
      adaptive: limit.adaptive !== undefined,
      unit: limit.responseCost?.unit,
      kindKey,
      costAfter: limit.responseCost,
      adaptiveLimit: limit.adaptive,
      calendarAlgorithm: calendarAlgorithmOf(limit),
    };
  }
}

/**
 * The priority class of `view`'s request under an adaptive limit: its `priority` option's
 * answer for the framework's request (anything but `'critical'` or `'sheddable'` counts
 * as `'default'`).
 */
function priorityOf(adaptive: AdaptiveAlgorithm, view: RequestView): AdaptivePriority {
  const priority = adaptive.controller.config.priority;
  if (priority === undefined) return 'default';
  const p = priority(view.raw);
  return p === 'critical' || p === 'sheddable' ? p : 'default';
}

/** What besides the quota makes a limit's algorithm: its penalty, or being a concurrency limit. */
function kindKeyOf(limit: Limit): string {
  const p = limit.penalty;
  if (p !== undefined) return `/block:${p.blockMs},${p.backoff},${p.maxBlockMs}`;
  if (limit.calendar !== undefined) return `/calendar:${calendarText(limit.calendar)}`;
  if (limit.adaptive !== undefined) return `/adaptive:${limit.adaptive.id}`;
  return limit.concurrent ? '/concurrent' : '';
}
