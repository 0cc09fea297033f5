import type { Algorithm } from '../algorithms/algorithm.js';
import { calendarText } from '../algorithms/calendar.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { integerAtLeast } from '../common/validate.js';
import { ipSubject, subnetOf, userIdOf } from '../http/request/keys.js';
import { keySegment } from '../keys/key-segment.js';
import { limitKeyPrefix, limitName } from '../keys/limit-key-prefix.js';
import {
  defaultLimitAlgorithm,
  type Limit,
  type LimitAlgorithmFactory,
  limitAlgorithm,
} from '../limits/limit.js';
import type { RequestView } from '../limits/request-view.js';
import {
  throttles as defaultThrottles,
  type LimitInput,
  type ResolvedLimits,
  resolveLimitInput,
} from '../limits/throttle-registry.js';
import { operationsSnapshot } from '../operations/registry.js';
import type { OperationsSnapshot } from '../operations/snapshot.js';
import { guardedStore } from '../store-failure/guarded-store.js';
import { MemoryStore } from '../stores/memory-store.js';
import { chargeTimeOf, consumeEach, type Store } from '../stores/store.js';
import { operatedVerdict } from './protocol-operations.js';
import { PROTOCOL_STORE_OPTIONS, type ProtocolStoreOptions } from './protocol-options.js';
import { type ProtocolCharge, ProtocolVerdict } from './protocol-verdict.js';

/** Options of {@link ProtocolLimiter}. */
export interface ProtocolLimiterOptions extends ProtocolStoreOptions {
  /**
   * The limit(s): a throttle string (`'throttle:60,1'`, `'1000/hour'`, `'throttle:api'` for a
   * named limiter), a `Limit`, a function of the request view, or an array of them (all or
   * nothing). Required.
   */
  limit: LimitInput;
  /**
   * The key's route segment for this protocol (`'graphql'`, `'ws'`, `'trpc'`): keys are
   * `<prefix>:<limit name>:<channel>:user:<id>` or `…:ip:<ip>`, as HTTP keys are
   * `<prefix>:<limit name>:<route>:…` (the prefix marked with the algorithm, `sl@fw:`, under
   * any but GCRA: one rule, `limitKeyPrefix`). Required: a short text (hashed if long or unusual).
   */
  channel: string;
}

/** Options of one {@link ProtocolLimiter.check}. */
export interface ProtocolCheckOptions {
  /**
   * Units to take under every limit (a GraphQL query's points), an integer >= 0; or one
   * such integer per limit, in the order of the limits (a front door that charges each limit
   * its own unit: requests, tokens, micro-units of money). Default: each limit's own
   * `requestCost` (1 unless `Limit.cost(n)`).
   */
  cost?: number | readonly number[];
  /**
   * The limits of this call, already resolved, replacing the limiter's `limit` (a front
   * door that resolves its own inputs, as `@sluice/ai` does per kind of unit). Unlimited
   * ones (`Limit.none()`) are skipped, with their `cost` entry.
   */
  limits?: readonly Limit[];
  /**
   * The subject replacing user / IP (the `key` option of the protocol helpers): keys are
   * then `<prefix>:<limit name>:<key>`, shared across channels.
   */
  key?: string;
  /**
   * The key's route segment for this call, replacing the limiter's `channel` (a tRPC
   * procedure's path for per-procedure budgets).
   */
  route?: string;
}

const OPTIONS = ['limit', 'channel', ...PROTOCOL_STORE_OPTIONS];

/** One limit made ready: its algorithm and key prefix. */
interface Prepared {
  algorithm: Algorithm;
  /** `<prefix><algorithm tag>:<limit name>:` (`limitKeyPrefix`). */
  keyPrefix: string;
  name: string;
  cost: number;
  windowSeconds: number;
  periodMs: number;
}

/**
 * A limit applied to one protocol's units of work outside HTTP requests: a WebSocket
 * message, a GraphQL operation's points, a tRPC call. The shared core of `@sluice/ws`,
 * `@sluice/graphql` and `@sluice/trpc`: it resolves the same limit input as the HTTP
 * middleware (throttle strings, `Limit`s, named limiters, arrays all or nothing), keys a
 * subject as HTTP does (the user id, else the IP with IPv6 grouped by /64), decides through
 * the same stores and store-failure policy, and holds a charge to settle it later to what
 * the work really cost (`Limit.costAfter`'s semantics: the difference given back exactly,
 * or charged past the quota on an algorithm that can carry a debt).
 *
 * @throws {@link SluiceConfigError} at construction for an unknown option, a bad `limit`,
 *   `channel`, `store`, `prefix`, `clock`, `ipv6Subnet` or an unknown named limiter.
 * @example
 * ```ts
 * const limiter = new ProtocolLimiter({ limit: Limit.perHour(1000).named('points'), channel: 'graphql' });
 * const verdict = await limiter.check({ method: 'POST', route: 'graphql', ip, headers: {}, raw: req }, { cost: 150 });
 * if (verdict.allowed) await limiter.settle(verdict, 40); // gives back exactly 110
 * ```
 */
export class ProtocolLimiter {
  readonly #limits: ResolvedLimits;
  readonly #store: Store;
  readonly #factory: LimitAlgorithmFactory;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #clock: () => number;
  readonly #ipv6Subnet: number | ((req: RequestView) => number);
  readonly #prepared = new Map<Limit | string, Prepared>();
  readonly #static: readonly Limit[] | undefined;
  /** Operator entries of the store and prefix (`LimitOperations`): allow, deny, ban. */
  readonly #operations: OperationsSnapshot | undefined;

  constructor(options: ProtocolLimiterOptions) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { limit, channel, store?, … }');
    }
    checkOptionNames(options, OPTIONS, 'new ProtocolLimiter()');
    const { channel, prefix = 'sl', clock = Date.now, algorithm = defaultLimitAlgorithm } = options;
    this.#limits = resolveLimitInput(options.limit, options.throttles ?? defaultThrottles);
    if (typeof channel !== 'string' || channel === '') {
      throw new SluiceConfigError('channel', channel, 'a non-empty string');
    }
    if (typeof prefix !== 'string') throw new SluiceConfigError('prefix', prefix, 'a string');
    if (typeof clock !== 'function') throw new SluiceConfigError('clock', clock, 'a function');
    if (typeof algorithm !== 'function') {
      throw new SluiceConfigError(
        'algorithm',
        algorithm,
        'a function ({ limit, periodMs }) => Algorithm',
      );
    }
    const subnet = options.ipv6Subnet ?? 64;
    this.#ipv6Subnet =
      typeof subnet === 'function' ? subnet : integerAtLeast('ipv6Subnet', subnet, 1);
    if ((this.#ipv6Subnet as number) > 128)
      throw new SluiceConfigError('ipv6Subnet', subnet, 'an integer 1-128');
    const guarded = guardedStore({
      store: options.store ?? new MemoryStore(),
      onStoreError: options.onStoreError ?? 'insurance',
      logger: options.logger ?? console,
      requireReset: false,
    });
    this.#store = guarded.store;
    this.#operations = operationsSnapshot((guarded.userStore as Store).operations, prefix);
    this.#factory = algorithm;
    this.#prefix = prefix;
    this.#channel = keySegment(channel);
    this.#clock = clock;
    this.#static = this.#limits.isStatic
      ? (this.#limits.limitsFor(undefined as never) as readonly Limit[])
      : undefined;
    // Static limits are prepared now: a bad algorithm fails at construction.
    for (const limit of this.#static ?? []) if (!limit.unlimited) this.#prepare(limit);
  }

  /** The store decisions go to (a store that can fail is wrapped by the `onStoreError` policy). */
  get store(): Store {
    return this.#store;
  }

  /**
   * Decides one unit of work for `view`'s subject under every limit, all or nothing:
   * admitted and charged under each, or charged under none. A promise only when a resolver
   * or the store answers with one (a MemoryStore with fixed limits decides synchronously).
   *
   * @throws `TypeError` for a `cost` that is not an integer >= 0; whatever a named limiter
   *   throws (the caller turns it into its protocol's error, never an unlimited request).
   */
  check(
    view: RequestView,
    options?: ProtocolCheckOptions,
  ): ProtocolVerdict | Promise<ProtocolVerdict> {
    const cost = options?.cost;
    for (const c of Array.isArray(cost) ? cost : [cost]) {
      if (c !== undefined && (!Number.isInteger(c) || c < 0)) {
        throw new TypeError(
          `sluice: cost must be an integer >= 0, got ${typeof c === 'number' ? c : typeof c}`,
        );
      }
    }
    const route = options?.route === undefined ? this.#channel : keySegment(options.route);
    const limits = options?.limits ?? this.#static ?? this.#limits.limitsFor(view);
    if (limits instanceof Promise) {
      return limits.then((l) => this.#decide(l, view, options?.key, cost, route));
    }
    return this.#decide(limits as readonly Limit[], view, options?.key, cost, route);
  }

  /**
   * Settles a held verdict to the units the work really used: each limit gives back
   * `charged - units` exactly when smaller, or charges the excess past its quota when larger
   * (on an algorithm that can carry a debt: GCRA, fixed window, calendar quotas; elsewhere the
   * charge stays). Never rejects: a store failure leaves the charge as it was.
   *
   * @param units - what the work cost: a finite number >= 0, rounded up; or one per charge,
   *   in the order of `verdict.charges` (a front door charging each limit its own unit).
   * @returns each limit's peek after settling (`[]` when the verdict was a denial); an array
   *   at once on a synchronous store (MemoryStore), else a promise of it.
   */
  settle(
    verdict: ProtocolVerdict,
    units: number | readonly number[],
  ): Decision[] | Promise<Decision[]> {
    for (const u of Array.isArray(units) ? units : [units]) {
      if (!Number.isFinite(u) || u < 0) {
        throw new TypeError(`sluice: units must be a finite number >= 0, got ${String(u)}`);
      }
    }
    if (!verdict.allowed) return [];
    const now = this.#clock();
    const store = this.#store;
    const results: (Decision | Promise<Decision>)[] = [];
    let pending = false;
    for (let i = 0; i < verdict.charges.length; i++) {
      const c = verdict.charges[i]!;
      const amount = c.cost - Math.ceil(Array.isArray(units) ? (units[i] ?? c.cost) : units);
      let r: Decision | Promise<Decision>;
      try {
        if (amount === 0)
          r = verdict.decisions[i]!; // nothing to settle: the charge's own state
        else if (typeof store.refund !== 'function' || (amount < 0 && c.algorithm.debt !== true)) {
          r = store.consume(c.key, c.algorithm, 0, now);
        } else r = store.refund(c.key, c.algorithm, amount, now, c.atMs);
      } catch (error) {
        r = Promise.reject(error);
      }
      if (r instanceof Promise) pending = true;
      results.push(r);
    }
    if (!pending) return results as Decision[];
    // A store failure leaves that charge as it was: its peek is left out.
    return Promise.allSettled(results).then((settled) =>
      settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
    );
  }

  #decide(
    limits: readonly Limit[],
    view: RequestView,
    key: string | undefined,
    costs: number | readonly number[] | undefined,
    route: string,
  ): ProtocolVerdict | Promise<ProtocolVerdict> {
    const subject = key !== undefined ? keySegment(key) : this.#subjectOf(view);
    const charges: ProtocolCharge[] = [];
    const each = Array.isArray(costs);
    const cost = each ? costs.reduce((a, b) => a + b, 0) : (costs as number | undefined);
    for (let i = 0; i < limits.length; i++) {
      const limit = limits[i]!;
      if (limit.unlimited) continue;
      const p = this.#prepare(limit);
      const k =
        limit.subject !== undefined
          ? p.keyPrefix + keySegment(limit.subject)
          : key !== undefined
            ? p.keyPrefix + subject
            : `${p.keyPrefix}${route}:${subject}`;
      charges.push({
        key: k,
        algorithm: p.algorithm,
        cost: each ? ((costs as readonly number[])[i] ?? p.cost) : (cost ?? p.cost),
        atMs: 0,
        name: p.name,
        windowSeconds: p.windowSeconds,
        periodMs: p.periodMs,
      });
    }
    const now = this.#clock();
    if (charges.length === 0) return ProtocolVerdict.unlimited(cost ?? 1);
    const ops = this.#operations;
    if (ops?.active === true) {
      const operated = operatedVerdict(ops, view, key, charges, cost ?? 1, now, this.#ipv6Subnet);
      if (operated !== undefined) return operated;
    }
    const store = this.#store;
    // perf: one limit (the usual case) decides without the arrays and closures of many
    if (charges.length === 1) {
      const c = charges[0]!;
      const d = store.consume(c.key, c.algorithm, c.cost, now);
      return d instanceof Promise
        ? d.then((x) => verdictOf([x], charges, now))
        : verdictOf([d], charges, now);
    }
    const decided =
      typeof store.consumeAll === 'function'
        ? store.consumeAll(charges, now)
        : consumeEach(
            charges.map((c) => c.cost),
            (i, c) => store.consume(charges[i]!.key, charges[i]!.algorithm, c, now),
          );
    return decided instanceof Promise
      ? decided.then((d) => verdictOf(d, charges, now))
      : verdictOf(decided, charges, now);
  }

  #subjectOf(view: RequestView): string {
    const user = userIdOf(view.userId);
    if (user !== undefined) return `user:${keySegment(String(user))}`;
    return `ip:${ipSubject(view.ip ?? '', subnetOf(view, this.#ipv6Subnet))}`;
  }

  #prepare(limit: Limit): Prepared {
    // Fixed limits are found by identity; a named limiter's (new objects on every call) by
    // what its keys and algorithm depend on.
    const id: Limit | string =
      this.#static !== undefined
        ? limit
        : `${limit.name}|${limit.maxAttempts}|${limit.periodMs}|${limit.requestCost}|${limit.concurrent}|${limit.calendar === undefined ? '' : calendarText(limit.calendar)}|${limit.penalty === undefined ? '' : JSON.stringify(limit.penalty)}`;
    let p = this.#prepared.get(id);
    if (p !== undefined) return p;
    const algorithm = limitAlgorithm(limit, this.#factory)!;
    const name = limitName(limit);
    p = {
      algorithm,
      // The HTTP plan's keys for the same limit (keys/limit-key-prefix.ts): with the
      // algorithm's tag, so a limit moved off GCRA never reads the old algorithm's state.
      keyPrefix: limitKeyPrefix(this.#prefix, algorithm, name),
      name,
      cost: limit.requestCost,
      windowSeconds: Math.ceil(limit.periodMs / 1000),
      periodMs: limit.periodMs,
    };
    // Bounded: a resolver may return many different quotas.
    if (this.#prepared.size >= 1000) this.#prepared.clear();
    this.#prepared.set(id, p);
    return p;
  }
}

/** The verdict of `decisions` (in the order of `charges`), each charge timed. */
function verdictOf(decisions: Decision[], charges: ProtocolCharge[], now: number): ProtocolVerdict {
  for (let i = 0; i < charges.length; i++) charges[i]!.atMs = chargeTimeOf(decisions[i]!) ?? now;
  return new ProtocolVerdict(decisions, charges);
}
