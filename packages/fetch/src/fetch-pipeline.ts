import { type Decision, type HttpLimitOptions, SluiceConfigError } from '@sluice/core';
import { HttpPipeline, type HttpVerdict, type LimiterScope } from '@sluice/core/http';
import { type FetchCall, type FetchRequestState, fetchBinding } from './binding.js';
import { type IpResolver, noIpMessage, type RuntimeName } from './ip.js';
import { settleWhenDone } from './settle.js';

/**
 * What one check of a request decided: let it through (`apply` the headers to the handler's
 * response) or answer `response` (the 429) without running the handler.
 */
export interface FetchVerdict {
  /** `false`: answer {@link FetchVerdict.response} and do not run the handler. */
  readonly allowed: boolean;
  /**
   * The decision reported for the request (the most restrictive of the limiters that
   * checked it); `undefined` when no limiter limited it (skipped).
   */
  readonly decision: Decision | undefined;
  /** The answer of a denied request (429, `Retry-After`, the rate-limit headers, the body). */
  readonly response: Response | undefined;
  /**
   * The rate-limit headers of the request (the most restrictive decision's), for an adapter
   * that can set them before the response exists (Hono's `c.header`), which costs less than
   * `apply` on the finished response.
   */
  readonly headers: ReadonlyMap<string, string>;
  /**
   * Whether the request holds charges to settle when its response is done (a lease,
   * outcome-aware counting, `Limit.costAfter`): then the response must go through `apply`.
   */
  readonly holds: boolean;
  /**
   * The handler's response with the rate-limit headers (a copy when its headers are
   * immutable, as a `fetch()` response's are). When the request holds charges to settle
   * (a concurrency lease, outcome-aware counting, `Limit.costAfter`), its body is passed
   * through a `TransformStream`, and they are settled when the body ends or is cancelled
   * (under `waitUntil` when given).
   */
  apply(response: Response): Response;
  /**
   * The handler failed without a response (it threw): settles what the request holds as a
   * request whose connection closed early (leases released).
   */
  abandon(): void;
}

/** One check's inputs, resolved by the caller. */
export interface FetchCheckInput {
  /** The client IP, resolved; `undefined`: ask the limiter's `ip` resolver with `env`. */
  ip?: string | undefined;
  /** The handler's second argument (Bun's `server`, Deno's `info`…), for the `ip` resolver. */
  env?: unknown;
  /** The matched route pattern (`/users/:id`): the limit is then per route. */
  route?: string | undefined;
  /** The user id (a non-empty string or a finite number); the `user` option replaces it. */
  user?: unknown;
  /** Keeps post-response work alive (Workers' `ctx.waitUntil`, Next's `after`). */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /** What the options' callbacks get as the framework's request (Hono's `c`); default the `Request`. */
  context?: unknown;
  /**
   * The handlers that will serve the request, asked only when some handler is marked: a
   * global limiter (Hono's `rateLimit`) exempts the request when one is marked
   * `@SkipThrottle()` / `markSkipThrottle`.
   */
  handlers?: (() => readonly unknown[]) | undefined;
}

/**
 * Each `Request`'s shared state, which every sluice limiter that checks it finds: under a
 * symbol on the request (perf: a WeakMap entry per request costs more than the decision),
 * in a WeakMap only for a request that takes no property (frozen).
 */
const kState = Symbol('sluice.fetchState');
let frozen: WeakMap<Request, FetchRequestState> | undefined;

function stateOf(request: Request): FetchRequestState {
  const r = request as Request & { [kState]?: FetchRequestState };
  let state = r[kState] ?? frozen?.get(request);
  if (state === undefined) {
    state = {
      headers: new Map(),
      decision: undefined,
      finish: undefined,
      response: undefined,
      watched: false,
    };
    if (Object.isExtensible(request)) r[kState] = state;
    else {
      frozen ??= new WeakMap();
      frozen.set(request, state);
    }
  }
  return state;
}

/**
 * The core's HTTP pipeline on fetch-standard requests: what `createFetchLimiter`,
 * `limitFetch` and `@sluice/hono` share. It resolves the client IP, runs the pipeline
 * through {@link fetchBinding} and turns its verdict into Responses.
 */
export class FetchPipeline {
  readonly #pipeline: HttpPipeline<FetchCall, FetchCall>;
  readonly #ip: IpResolver | undefined;
  /** The runtime detected, for the `ip` error (injected: Hono asks its own runtime key). */
  readonly #runtime: () => RuntimeName;
  /** This limiter's application: its default store, when there is no `store` option. */
  readonly #app: object = {};

  constructor(
    core: HttpLimitOptions<FetchCall, FetchCall>,
    ip: IpResolver | undefined,
    scope: LimiterScope,
    runtime: () => RuntimeName,
  ) {
    this.#pipeline = new HttpPipeline(core, fetchBinding, scope);
    this.#ip = ip;
    this.#runtime = runtime;
  }

  /**
   * Checks `request`.
   * @throws `SluiceConfigError` naming `ip` when the client IP cannot be resolved (answer
   *   500), and what a user callback throws.
   */
  async check(request: Request, input: FetchCheckInput = {}): Promise<FetchVerdict> {
    return this.decide(request, input);
  }

  /**
   * {@link FetchPipeline.check}, synchronous when the store and every callback are (the
   * memory store): perf: an adapter that awaits only a promise saves two microtask turns per
   * request.
   * @throws as {@link FetchPipeline.check} rejects.
   */
  decide(request: Request, input: FetchCheckInput): FetchVerdict | Promise<FetchVerdict> {
    const ip = input.ip ?? this.#ip?.(request, input.env);
    if (typeof ip !== 'string' || ip === '') {
      throw new SluiceConfigError('ip', ip, 'the client IP of the request', {
        message: noIpMessage(input.env, this.#runtime()),
      });
    }
    const state = stateOf(request);
    const call: FetchCall = {
      request,
      ip,
      route: input.route,
      user: input.user,
      trust: this.#ip?.proxyTrust,
      app: this.#app,
      state,
      context: input.context ?? request,
      handlers: input.handlers,
      headerRecord: undefined,
      waitUntil: input.waitUntil,
    };
    const verdict = this.#pipeline.handle(call, call);
    if (verdict instanceof Promise) {
      return verdict.then((v) => verdictOf(state, input.waitUntil, v));
    }
    return verdictOf(state, input.waitUntil, verdict);
  }
}

/**
 * The pipeline's verdict as a {@link FetchVerdict}. (A client that goes away before the
 * response exists: the binding's `onFinished` watches the request's abort signal.)
 */
function verdictOf(
  state: FetchRequestState,
  waitUntil: FetchCheckInput['waitUntil'],
  verdict: HttpVerdict | undefined,
): FetchVerdict {
  if (verdict === undefined || verdict.allowed) return new Allowed(state, waitUntil);
  settleWhenDone(state, waitUntil)(verdict.statusCode);
  return denied(state, verdict);
}

/** An allowed request's verdict: a class, not closures (one per request, on the hot path). */
class Allowed implements FetchVerdict {
  readonly allowed = true;
  readonly response = undefined;
  readonly #state: FetchRequestState;
  readonly #waitUntil: FetchCheckInput['waitUntil'];

  constructor(state: FetchRequestState, waitUntil: FetchCheckInput['waitUntil']) {
    this.#state = state;
    this.#waitUntil = waitUntil;
  }

  get decision(): Decision | undefined {
    return this.#state.decision;
  }

  get headers(): ReadonlyMap<string, string> {
    return this.#state.headers;
  }

  get holds(): boolean {
    return this.#state.finish !== undefined;
  }

  apply(response: Response): Response {
    return applyTo(response, this.#state, this.#waitUntil);
  }

  abandon(): void {
    settleWhenDone(this.#state, this.#waitUntil)(undefined);
  }
}

function denied(state: FetchRequestState, v: HttpVerdict): FetchVerdict {
  const headers = new Headers([...state.headers]);
  if (v.contentType !== undefined) headers.set('content-type', v.contentType);
  const body = typeof v.body === 'string' || v.body === undefined ? v.body : JSON.stringify(v.body);
  return {
    allowed: false,
    decision: state.decision ?? v.decision,
    response: new Response(body, { status: v.statusCode, headers }),
    headers: state.headers,
    holds: false,
    apply: (response) => response,
    abandon: () => undefined,
  };
}

/** `response` with the request's rate-limit headers, its body watched when charges are held. */
function applyTo(
  response: Response,
  state: FetchRequestState,
  waitUntil: FetchCheckInput['waitUntil'],
): Response {
  let out = response;
  let copied = false;
  state.headers.forEach((value, name) => {
    try {
      out.headers.set(name, value);
    } catch {
      if (copied) throw new TypeError('sluice: the response headers cannot be set');
      // Immutable headers (a `fetch()` response, `Response.redirect`): a copy takes them.
      out = new Response(out.body, out);
      copied = true;
      out.headers.set(name, value);
    }
  });
  state.response = out;
  if (state.finish === undefined) return out;
  const end = settleWhenDone(state, waitUntil);
  const status = out.status;
  if (out.body === null) {
    end(status);
    return out;
  }
  // The end of the body (or its cancellation: the client went away) settles the charges.
  const pipe = new TransformStream();
  out.body.pipeTo(pipe.writable).then(
    () => end(status),
    () => end(undefined),
  );
  return new Response(pipe.readable, out);
}
