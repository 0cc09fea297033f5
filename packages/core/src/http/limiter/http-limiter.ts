import type { Algorithm } from '../../algorithms/algorithm.js';
import type { Decision } from '../../algorithms/decision.js';
import { mostRestrictive } from '../../engine/restrictive.js';
import type { Limit } from '../../limits/limit.js';
import { limitAlgorithm } from '../../limits/limit.js';
import type { RequestView } from '../../limits/request-view.js';
import { isPromiseLike } from '../../limits/throttle-registry.js';
import { httpOperations } from '../../operations/registry.js';
import { storeReady } from '../../stores/store.js';
import type { HttpBinding } from '../binding.js';
import type { HttpMetrics } from '../metrics/metrics.js';
import type { HttpConfig, HttpLimitOptions } from '../options/options.js';
import { parseHttpOptions } from '../options/parse-options.js';
import { defaultStoreOf } from '../request/default-store.js';
import { checkedUser, ipSubject, keySubject, routeKey, userIdOf } from '../request/keys.js';
import { LazyRequestView } from '../request/lazy-view.js';
import { DenialAnswer } from '../verdict/denial.js';
import { ShadowVerdict } from '../verdict/shadow.js';
import { type HttpVerdict, Verdict } from '../verdict/verdict.js';
import { type Charge, consumeAll, consumeAt } from './charge.js';
import { holdCharge, settleWhenFinished } from './held.js';
import { chargedFor, chargeOnce, ledgerOf, remember } from './ledger.js';
import { LimitPlan, type PlannedLimit } from './plan.js';
import { checkQueueable, checkQueueStore, HttpQueue } from './queue.js';
import { ResolverTimeouts } from './resolver-timeout.js';

/**
 * Where {@link HttpLimiter.decide} reads a framework's requests: the adapter's binding, and
 * whether the limiter is global (one bucket across routes, route `*`) or per route.
 */
export interface RequestSource<Req, Res> {
  binding: HttpBinding<Req, Res>;
  global: boolean;
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
  /** No `store` option: each application's default store. */
  readonly #byApp: boolean;
  #lastPlan: LimitPlan | undefined;
  /** `mode: 'queue'`: the requests waiting for their slot; `undefined` in another mode. */
  readonly #queue: HttpQueue | undefined;

  constructor(options: HttpLimitOptions<Req, never> = {}) {
    const config = parseHttpOptions(options);
    this.config = config;
    this.metrics = config.metrics;
    this.#answer = new DenialAnswer(config as HttpConfig<unknown>);
    this.#byApp = config.store === undefined;
    this.#timeouts = new ResolverTimeouts(config.resolverTimeoutMs, config.logger);
    this.#queue =
      config.queue === undefined ? undefined : new HttpQueue(config.queue, config.clock);
    if (config.queue !== undefined) checkQueueConfig(config as HttpConfig<unknown>);
    this.#fixedPlan =
      config.store === undefined ? undefined : this.#plan(config.store, config.userStore!);
  }

  /**
   * Waits for the store of the `store` option to be ready (`Store.ready`); at once without
   * one (each application's default store is in memory). Rejects with the store's reason
   * (a `StoreNotReadyError` naming `migrate()` for a PostgresStore never migrated). What
   * the adapters with a start-up hook call, so a store that cannot decide fails start-up.
   */
  ready(): Promise<void> {
    const store = this.config.userStore;
    return store === undefined ? Promise.resolve() : storeReady(store);
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
   * Decides one framework request from end to end, for {@link HttpPipeline}: its user id
   * ({@link HttpLimiter.userOf}, the binding's convention by default), its view, the
   * decision ({@link HttpLimiter.check}), and the verdict's held charges, which the limiter
   * settles itself when the binding reports the response finished. The pipeline calls it
   * once per request; nothing here calls the pipeline back.
   *
   * @param ledger - what `binding.ledger(req, res)` gave (see `RequestView.ledger`).
   */
  decide<Res>(
    req: Req,
    res: Res,
    ledger: object,
    source: RequestSource<Req, Res>,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const user = this.userOf(req, source.binding.user);
    if (user instanceof Promise)
      return user.then((u) => this.#request(req, res, ledger, source, u));
    return this.#request(req, res, ledger, source, user);
  }

  /** {@link HttpLimiter.decide} once the user id is known. */
  #request<Res>(
    req: Req,
    res: Res,
    ledger: object,
    source: RequestSource<Req, Res>,
    user: string | number | undefined,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const b = source.binding;
    const method = b.method(req);
    const view = new LazyRequestView(
      method,
      source.global ? '*' : routeKey(method, b.route(req)),
      b.ip(req),
      user,
      req,
      b.headers,
      ledger,
      b.request === undefined ? req : b.request(req),
    );
    // `mode: 'queue'`: a client that goes away while waiting gives its slot back.
    let gone: AbortController | undefined;
    if (this.#queue !== undefined && b.onFinished !== undefined) {
      const closed = new AbortController();
      b.onFinished(req, res, (status) => {
        if (status === undefined) closed.abort();
        return Promise.resolve();
      });
      gone = closed;
    }
    // The application matters only for its default store (no `store` option).
    const verdict = this.check(view, this.#byApp ? b.app(req) : undefined, gone?.signal);
    if (verdict === undefined) return undefined;
    if (verdict instanceof Promise) {
      return verdict.then((v) => (v === undefined ? v : this.#hold(req, res, b, v)));
    }
    return this.#hold(req, res, b, verdict);
  }

  /** Settles `v`'s held charges when the response finishes (see {@link settleWhenFinished}). */
  #hold<Res>(req: Req, res: Res, b: HttpBinding<Req, Res>, v: HttpVerdict): HttpVerdict {
    const held = (v as Verdict).held;
    if (held !== undefined && b.onFinished !== undefined) {
      settleWhenFinished(
        held,
        { req, res, onFinished: b.onFinished, callbackArgs: b.callbackArgs },
        this.config,
        this.metrics,
      );
    }
    return v;
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
   * @param gone - `mode: 'queue'`: aborts when the client went away (a waiting request
   *   then gives its slot back).
   */
  check(
    view: RequestView,
    app?: object,
    gone?: AbortSignal,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const skip = this.config.skip;
    if (skip !== undefined) {
      const skipped = skip(view);
      if (isPromiseLike(skipped)) {
        return this.#timeouts
          .bound(skipped, 'skip')
          .then((s) => (s ? undefined : this.#limits(view, app, gone)));
      }
      if (skipped) return undefined;
    }
    return this.#limits(view, app, gone);
  }

  /** {@link HttpLimiter.check} once `skip` said no: the request's limits. */
  #limits(view: RequestView, app: object | undefined, gone: AbortSignal | undefined) {
    const plan = this.#fixedPlan ?? this.#defaultPlan(app);
    const planned = plan.limitsFor(view);
    if (planned instanceof Promise) {
      return this.#timeouts.bound(planned, 'limit').then((p) => this.#keyed(view, plan, p, gone));
    }
    return this.#keyed(view, plan, planned, gone);
  }

  /** The subject of the `key` option, when given (it replaces route and user/IP), then the decision. */
  #keyed(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
    gone: AbortSignal | undefined,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    if (planned.length === 0) return undefined;
    const key = this.config.key;
    if (key === undefined) return this.#operated(view, plan, planned, undefined, gone);
    const k = key(view);
    if (isPromiseLike(k)) {
      return this.#timeouts
        .bound(k, 'key')
        .then((v) => this.#operated(view, plan, planned, keySubject(v), gone));
    }
    return this.#operated(view, plan, planned, keySubject(k), gone);
  }

  /**
   * The operator entries of the store and prefix (`LimitOperations`), asked from the local
   * snapshot (no store round trip), once the request's user, IP and key are known: allow
   * skips the limits, deny answers 403, ban 429, an override replaces the quotas; else
   * the configured limits decide.
   */
  #operated(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
    custom: string | undefined,
    gone: AbortSignal | undefined,
  ): HttpVerdict | Promise<HttpVerdict | undefined> | undefined {
    const ops = plan.operations;
    // perf: a field read when no entry is in force (no clock call).
    const live = ops?.active && ops.live(this.config.clock());
    if (!live) return this.#decide(view, plan, planned, custom, gone);
    // Workers: the entries' reload this decision started (it never rejects), then decide.
    if (live !== true) return live.then(() => this.#operated(view, plan, planned, custom, gone));
    const user = view.userId === undefined ? undefined : String(view.userId);
    const match = ops.check(view.ip, user, custom, this.config.ipv6Subnet, view);
    if (match === undefined) return this.#decide(view, plan, planned, custom, gone);
    if (match.kind === 'allow') return undefined;
    if (match.kind === 'override') {
      return this.#decide(view, plan, plan.overridden(planned, match.overrides), custom, gone);
    }
    const p = planned[0]!;
    const c = this.config as HttpConfig<unknown>;
    const http = httpOperations();
    const v = http.entryVerdict(match.kind, match.entry, p, c.clock(), c);
    http.answerEntry(match.kind, view, v, this.#answer, c);
    this.metrics?.request(p.name, v.decision, undefined, false);
    ops.denied(deniedId(view, custom));
    return v;
  }

  #decide(
    view: RequestView,
    plan: LimitPlan,
    planned: PlannedLimit[],
    custom: string | undefined,
    gone?: AbortSignal,
  ): HttpVerdict | Promise<HttpVerdict> {
    if (planned.length === 1) return this.#checkOne(view, plan, planned, custom, gone);
    const c = this.config;
    const charges: Charge[] = new Array(planned.length);
    for (let i = 0; i < planned.length; i++) charges[i] = plan.chargeOf(view, planned[i]!, custom);
    const ledger = ledgerOf(view.ledger ?? view.raw);
    const now = c.clock();
    const toHold: Charge[] | undefined =
      c.outcome !== undefined ||
      planned.some((p) => p.algorithm.concurrent === true || p.costAfter !== undefined)
        ? []
        : undefined;
    const queue = this.#queue;
    const decided = chargeOnce(
      plan,
      charges,
      now,
      ledger,
      toHold,
      queue === undefined
        ? undefined
        : (todo) =>
            todo.length === 1
              ? (queue.decide(plan.store, todo[0]!, todo[0]!.cost, now, gone)?.then((d) => [d]) ??
                consumeAll(plan.store, todo, now))
              : queue.decideAll(plan.store, todo, now, gone),
    );
    const finish = (ds: Decision[]) => {
      const v = this.#verdict(view, planned, ds, now);
      if (!v.allowed) plan.operations?.denied(deniedId(view, custom));
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
    gone: AbortSignal | undefined,
  ): HttpVerdict | Promise<HttpVerdict> {
    const p = planned[0]!;
    const charge = plan.chargeOf(view, p, custom);
    const ledger = ledgerOf(view.ledger ?? view.raw);
    const now = this.config.clock();
    const { prefix } = charge.keySpace;
    const previous = chargedFor(ledger, plan.userStore, prefix, charge.subject);
    if (previous !== undefined) return this.#make(view, planned, 0, previous, undefined, now);
    const holds =
      this.config.outcome !== undefined ||
      p.algorithm.concurrent === true ||
      p.costAfter !== undefined;
    const queued = this.#queue?.decide(plan.store, charge, p.cost, now, gone);
    const decision = queued ?? consumeAt(plan.store, charge, p.cost, now);
    if (decision instanceof Promise) {
      return decision.then((d) => {
        remember(ledger, plan.userStore, prefix, charge.subject, d);
        if (!d.allowed) plan.operations?.denied(deniedId(view, custom));
        const v = this.#make(view, planned, 0, d, undefined, now);
        if (holds && d.allowed && (charge.cost > 0 || p.costAfter !== undefined))
          v.held = [holdCharge(plan.store, charge, d, now, p.name)];
        return v;
      });
    }
    remember(ledger, plan.userStore, prefix, charge.subject, decision);
    if (!decision.allowed) plan.operations?.denied(deniedId(view, custom));
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
    if (last !== undefined && last.userStore === store) return last;
    let plan = this.#plans.get(store);
    if (plan === undefined) {
      plan = this.#plan(store, store);
      this.#plans.set(store, plan);
    }
    this.#lastPlan = plan;
    return plan;
  }

  #plan(store: LimitPlan['store'], userStore: LimitPlan['userStore']): LimitPlan {
    const timed = this.metrics?.timed(store) ?? store;
    const config = this.config as HttpConfig<unknown>;
    const plan = new LimitPlan({ store: timed, userStore, config, algorithms: this.#algorithms });
    if (plan.operations !== undefined) this.metrics?.watchTop(plan.operations);
    return plan;
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

/**
 * `mode: 'queue'` at construction: every static limit can book a future slot, and the
 * `store` option (when given) can book (several slots at once when a route may have several
 * limits). Per-request limits are checked when first prepared (plan.ts).
 * @throws {@link SluiceConfigError} naming `mode`, saying why.
 */
function checkQueueConfig(config: HttpConfig<unknown>): void {
  const limits = config.limits;
  let several = true;
  if (limits.isStatic) {
    const list = (limits.limitsFor(undefined as never) as readonly Limit[]).filter(
      (l) => !l.unlimited,
    );
    for (const l of list) checkQueueable(limitAlgorithm(l, config.algorithmFactory)!);
    several = list.length > 1;
  }
  if (config.userStore !== undefined) checkQueueStore(config.userStore, several);
}

/** The subject `top()` counts a denied request under: its `key` answer, user or IP group. */
function deniedId(view: RequestView, custom: string | undefined): string {
  if (custom !== undefined) return `key:${custom}`;
  if (view.userId !== undefined) return `user:${view.userId}`;
  return `ip:${ipSubject(view.ip, 64)}`;
}
