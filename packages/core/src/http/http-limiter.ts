import type { Algorithm } from '../algorithms/algorithm.js';
import type { Decision } from '../algorithms/decision.js';
import { SluiceConfigError } from '../common/errors.js';
import { isPromiseLike } from '../limits/throttle-registry.js';
import { chargedFor, type Ledger, ledgerOf, remember } from './charges.js';
import { type Charge, consumeAll, consumeAt } from './consume-all.js';
import { defaultStoreOf } from './default-store.js';
import { ipSubject, keySegment, userIdOf } from './keys.js';
import type { HttpMetrics } from './metrics.js';
import type { HttpConfig, HttpLimitOptions } from './options.js';
import { holdCharge } from './outcome.js';
import { parseHttpOptions } from './parse-options.js';
import { LimitPlan, type PlannedLimit } from './plan.js';
import type { RequestView } from './request-view.js';
import { ResolverTimeouts } from './resolver-timeout.js';
import { keySubject } from './resolvers.js';
import { ShadowVerdict } from './shadow-verdict.js';
import { DenialAnswer, type HttpVerdict, mostRestrictive, Verdict } from './verdict.js';

const USER_RESULT =
  'the user option to return a user id (a string or a number), or undefined / null for no user';
const USER_HINT = 'return the id itself, e.g. user: (req) => req.user?.id, not the user object';

/** The `user` option's answer as a user id; a value of another kind is a mistake (thrown). */
function checkedUser(id: unknown): string | number | undefined {
  if (typeof id === 'string' || typeof id === 'number') return userIdOf(id);
  if (id === undefined || id === null) return undefined;
  throw new SluiceConfigError('user', id, USER_RESULT, { hint: USER_HINT });
}

/**
 * The decision logic of one HTTP limiter, shared by the Express, Fastify and Koa adapters:
 * keys, headers and the 429 answer, several limits per route (all or
 * nothing), skip, onLimited, and charging a request once per key. It imports no framework;
 * adapters reach it through an `HttpPipeline` (pipeline.ts), which builds the
 * {@link RequestView}, stacks limiters and writes the verdict.
 *
 * @typeParam Req - the framework's request type.
 * @throws {@link SluiceConfigError} at construction for any invalid option (named).
 *
 * @example
 * const limiter = new HttpLimiter({ limit: 'throttle:60,1' });
 * const verdict = limiter.check(view); // undefined: skipped; else allowed or a 429
 */
export class HttpLimiter<Req = unknown> {
  /** The parsed, validated options (see {@link HttpLimitOptions}). */
  readonly config: HttpConfig<Req>;
  /**
   * What the `metrics` option records, `undefined` without it; `metrics.lease(name, ±1)` is
   * the hook concurrency limits report their leases through.
   */
  readonly metrics: HttpMetrics | undefined;
  readonly #answer: DenialAnswer;
  /** Bounds the async resolvers by `resolverTimeout`. */
  readonly #timeouts: ResolverTimeouts;
  /** Algorithms by quota (`<maxAttempts>/<periodMs>`), shared by the plans. */
  readonly #algorithms = new Map<string, Algorithm>();
  /** The plan of the `store` option, made at construction; else one per default store. */
  readonly #fixedPlan: LimitPlan | undefined;
  readonly #plans = new WeakMap<object, LimitPlan>();
  #lastPlan: LimitPlan | undefined;

  constructor(options: HttpLimitOptions<Req, never> = {}) {
    const config = parseHttpOptions(options);
    this.config = config;
    this.metrics = config.metrics;
    this.#answer = new DenialAnswer(config as HttpConfig<unknown>);
    this.#timeouts = new ResolverTimeouts(config.resolverTimeoutMs, config.logger);
    this.#fixedPlan =
      config.store === undefined ? undefined : this.#plan(config.store, config.origin!);
  }

  /**
   * The user id of a framework request: the `user` option's answer, else
   * `defaultUser`'s (the adapter's convention), kept only when it is a non-empty string or
   * a finite number. A promise when the `user` option returned one.
   *
   * @throws {@link SluiceConfigError} naming `user` when the `user` option returns neither a
   *   string, a number, `undefined` nor `null` (the user object instead of its id, a
   *   boolean…): keying such a request by IP would hide the mistake. The adapters pass it to
   *   the framework's error handling (a 500), as any error of a user callback.
   */
  userOf(
    req: Req,
    defaultUser: (req: Req) => unknown,
  ): string | number | undefined | Promise<string | number | undefined> {
    const user = this.config.user;
    if (user === undefined) return userIdOf(defaultUser(req));
    const id = user(req);
    return isPromiseLike(id) ? this.#timeouts.bound(id, 'user').then(checkedUser) : checkedUser(id);
  }

  /**
   * Decides one request. Returns `undefined` when the request is skipped (no limit, no
   * headers); otherwise the verdict, synchronously when the store and every resolver
   * (`skip`, `key`, a named limiter) are synchronous (`MemoryStore`), else as a promise
   * (resolving to `undefined` when skipped). Never rejects for a store failure (see
   * `onStoreError`); throws (or rejects) only what a user callback throws, or a `TypeError`
   * naming the resolver that gave a value of the wrong kind.
   *
   * @param app - the application instance whose default store is used when there is no
   *   `store` option (see default-store.ts); `undefined`: the process's own.
   */
  check(
    view: RequestView,
    app?: object,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const skip = this.config.skip;
    if (skip !== undefined) {
      const skipped = skip(view);
      if (isPromiseLike(skipped)) {
        return this.#timeouts
          .bound(skipped, 'skip')
          .then((s) => (s ? undefined : this.#limits(view, app)));
      }
      if (skipped) return undefined;
    }
    return this.#limits(view, app);
  }

  /** {@link HttpLimiter.check} once `skip` said no: the request's limits. */
  #limits(view: RequestView, app: object | undefined) {
    const plan = this.#fixedPlan ?? this.#defaultPlan(app);
    const planned = plan.limitsFor(view);
    if (planned instanceof Promise) {
      return this.#timeouts.bound(planned, 'limit').then((p) => this.#keyed(view, plan, p));
    }
    return this.#keyed(view, plan, planned);
  }

  /** The subject of the `key` option, when given (it replaces route and user/IP), then the decision. */
  #keyed(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
  ): HttpVerdict | Promise<HttpVerdict> | undefined {
    if (planned.length === 0) return undefined;
    const key = this.config.key;
    if (key === undefined) return this.#decide(view, plan, planned, undefined);
    const k = key(view);
    if (isPromiseLike(k)) {
      return this.#timeouts
        .bound(k, 'key')
        .then((v) => this.#decide(view, plan, planned, keySubject(v)));
    }
    return this.#decide(view, plan, planned, keySubject(k));
  }

  #decide(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
    custom: string | undefined,
  ): HttpVerdict | Promise<HttpVerdict> {
    if (planned.length === 1) return this.#checkOne(view, plan, planned, custom);
    const c = this.config;
    const charges: Charge[] = new Array(planned.length);
    for (let i = 0; i < planned.length; i++)
      charges[i] = this.#chargeOf(view, plan, planned[i]!, custom);
    const ledger = ledgerOf(view.ledger ?? view.raw);
    const now = c.clock();
    const toHold: Charge[] | undefined =
      c.outcome !== undefined ||
      planned.some((p) => p.algorithm.concurrent === true || p.costAfter !== undefined)
        ? []
        : undefined;
    const decided = this.#consume(plan, charges, now, ledger, toHold);
    const finish = (ds: Decision[]) => {
      const v = this.#verdict(view, planned, ds, now);
      if (toHold !== undefined && v.allowed && toHold.length > 0) {
        v.held = toHold.map((e) => {
          const i = charges.indexOf(e);
          return holdCharge(plan.store, e, ds[i]!, now, planned[i]!.name);
        });
      }
      return v;
    };
    if (decided instanceof Promise) return decided.then(finish);
    return finish(decided);
  }

  /** {@link HttpLimiter.check} for one limit: no arrays, no closures. */
  #checkOne(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
    custom: string | undefined,
  ): HttpVerdict | Promise<HttpVerdict> {
    const p = planned[0]!;
    const charge = this.#chargeOf(view, plan, p, custom);
    const ledger = ledgerOf(view.ledger ?? view.raw);
    const now = this.config.clock();
    const { prefix } = charge.keySpace;
    const previous = chargedFor(ledger, plan.origin, prefix, charge.subject);
    if (previous !== undefined) return this.#make(view, planned, 0, previous, undefined, now);
    const decision = consumeAt(plan.store, charge, p.cost, now);
    const holds =
      this.config.outcome !== undefined ||
      p.algorithm.concurrent === true ||
      p.costAfter !== undefined;
    if (decision instanceof Promise) {
      return decision.then((d) => {
        remember(ledger, plan.origin, prefix, charge.subject, d);
        const v = this.#make(view, planned, 0, d, undefined, now);
        if (holds && d.allowed && (charge.cost > 0 || p.costAfter !== undefined))
          v.held = [holdCharge(plan.store, charge, d, now, p.name)];
        return v;
      });
    }
    remember(ledger, plan.origin, prefix, charge.subject, decision);
    const v = this.#make(view, planned, 0, decision, undefined, now);
    if (holds && decision.allowed && (charge.cost > 0 || p.costAfter !== undefined)) {
      v.held = [holdCharge(plan.store, charge, decision, now, p.name)];
    }
    return v;
  }

  /** The plan of an application's default store. */
  #defaultPlan(app: object | undefined): LimitPlan {
    const store = defaultStoreOf(app);
    const last = this.#lastPlan;
    if (last !== undefined && last.origin === store) return last;
    let plan = this.#plans.get(store);
    if (plan === undefined) {
      plan = this.#plan(store, store);
      this.#plans.set(store, plan);
    }
    this.#lastPlan = plan;
    return plan;
  }

  #plan(store: LimitPlan['store'], origin: LimitPlan['origin']): LimitPlan {
    const timed = this.metrics?.timed(store) ?? store;
    const config = this.config as HttpConfig<unknown>;
    return new LimitPlan({ store: timed, origin, config, algorithms: this.#algorithms });
  }

  /**
   * The key of `view` under `p`: `<prefix>:<limit name>:` + the `key` option's subject, or
   * `Limit.by`'s whole key, or `<route>:user:<id>` / `<route>:ip:<subject>`.
   */
  #chargeOf(
    view: RequestView,
    plan: LimitPlan,
    p: PlannedLimit,
    custom: string | undefined,
  ): Charge {
    const { algorithm, cost, costAfter } = p;
    if (custom !== undefined)
      return { keySpace: p.keySpace, subject: custom, algorithm, cost, costAfter };
    if (p.byKeySpace !== undefined)
      return { keySpace: p.byKeySpace, subject: '', algorithm, cost, costAfter };
    const keySpaces = plan.routeKeySpaces(p, view.route);
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
          subject: ipSubject(view.ip, this.config.ipv6Subnet),
          algorithm,
          cost,
          costAfter,
        };
  }

  /**
   * Consumes every charge or none. Keys this request was already charged for (e.g. a global
   * and a per-route limiter with the same limit) are reported, not charged again.
   */
  #consume(
    plan: LimitPlan,
    charges: Charge[],
    now: number,
    ledger: Ledger | undefined,
    toHold?: Charge[],
  ): Decision[] | Promise<Decision[]> {
    const todo: Charge[] = [];
    const decisions: (Decision | undefined)[] = new Array(charges.length);
    for (let i = 0; i < charges.length; i++) {
      const e = charges[i]!;
      const previous = chargedFor(ledger, plan.origin, e.keySpace.prefix, e.subject);
      if (previous !== undefined) decisions[i] = previous;
      else todo.push(e);
    }
    const record = (results: Decision[]): Decision[] => {
      let j = 0;
      for (let i = 0; i < charges.length; i++) {
        if (decisions[i] === undefined) {
          const d = results[j++]!;
          decisions[i] = d;
          remember(ledger, plan.origin, charges[i]!.keySpace.prefix, charges[i]!.subject, d);
          const e = charges[i]!;
          if (toHold !== undefined && d.allowed && (e.cost > 0 || e.costAfter !== undefined))
            toHold.push(e);
        }
      }
      return decisions as Decision[];
    };
    if (todo.length === 0) return decisions as Decision[];
    if (todo.length === 1) {
      const e = todo[0]!;
      const one = consumeAt(plan.store, e, e.cost, now);
      return one instanceof Promise ? one.then((d) => record([d])) : record([one]);
    }
    const all = consumeAll(plan.store, todo, now);
    return all instanceof Promise ? all.then(record) : record(all);
  }

  #verdict(
    view: RequestView,
    planned: PlannedLimit[],
    decisions: Decision[],
    now: number,
  ): Verdict {
    const reported = mostRestrictive(decisions);
    return this.#make(view, planned, reported, decisions[reported]!, decisions, now);
  }

  // biome-ignore lint/complexity/useMaxParams: perf: per request; positional, no options object per call
  #make(
    view: RequestView,
    planned: PlannedLimit[],
    reported: number,
    decision: Decision,
    decisions: Decision[] | undefined,
    now: number,
  ): Verdict {
    const c = this.config;
    const shadow = c.shadow && !decision.allowed;
    const v = new (shadow ? ShadowVerdict : Verdict)(
      decision,
      decisions,
      c.headerStyles,
      planned,
      reported,
      now,
    );
    if (shadow) this.#answer.shadowed(view, v);
    else if (!decision.allowed) this.#answer.deny(view, v);
    this.metrics?.request(planned[reported]!.name, decision, decisions, shadow);
    return v;
  }
}
