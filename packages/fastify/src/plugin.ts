import {
  HttpLimiter,
  type HttpVerdict,
  isThrottleSkipped,
  LazyRequestView,
  Limit,
  type LimitInput,
  SluiceConfigError,
} from '@sluice/core';
import type {
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
  RouteOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import type {
  ErrorResponseBuilder,
  FastifyRateLimitOptions,
  RouteRateLimit,
  RouteRateLimitOptions,
} from './types.js';

/** One limiter and how its denials are answered. */
interface Guard {
  limiter: HttpLimiter<FastifyRequest>;
  build: ErrorResponseBuilder | undefined;
}

/** One plugin registration; `parent` is the registration visible where it was registered. */
interface State {
  base: RouteRateLimitOptions;
  global: Guard | undefined;
  parent: State | undefined;
}

const kState = Symbol('sluice.fastify.state');
const kGuard = Symbol('sluice.fastify.guard');
type WithState = { [kState]?: State };
type Marked = { [kGuard]?: Guard };

const LIMIT_FORMS =
  'a throttle string, a Limit, an array of them, an options object, or false (opt out)';

const fastifyHeaders = (request: FastifyRequest) => request.headers;

const defaultUser = (request: FastifyRequest) =>
  (request as { user?: { id?: string | number } | null }).user?.id;

/** Builds a guard; throws `SluiceConfigError` for any invalid option. */
export function guard(options: RouteRateLimitOptions & { global?: unknown }): Guard {
  const { errorResponseBuilder: build, global: _global, ...core } = options;
  if (build !== undefined && typeof build !== 'function') {
    throw new SluiceConfigError('errorResponseBuilder', build, 'a function (request, verdict)');
  }
  const limiter = new HttpLimiter<FastifyRequest>(core, defaultUser);
  return { limiter, build };
}

/** `base` with `input` (a limit or options) applied over it. */
function merge(base: RouteRateLimitOptions, input: unknown): RouteRateLimitOptions {
  if (input === undefined) return base;
  if (typeof input === 'string' || Array.isArray(input) || input instanceof Limit) {
    return { ...base, limit: input as LimitInput };
  }
  if (typeof input === 'object' && input !== null) return { ...base, ...input };
  throw new SluiceConfigError('rateLimit', input, LIMIT_FORMS);
}

/**
 * Runs `guards` in order for one request: `true` when every one allowed (headers of the most
 * restrictive written, `request.rateLimit` set), `false` when one denied (the response is
 * sent). Synchronous unless a store is. Throws / rejects only for a failing user callback.
 */
export function runGuards(
  guards: readonly Guard[],
  route: string | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  from = 0,
  best?: HttpVerdict,
): boolean | Promise<boolean> {
  if (route === undefined) {
    const url = request.routeOptions.url;
    route = url === undefined ? '*' : `${request.method} ${url}`;
  }
  for (let i = from; i < guards.length; i++) {
    const g = guards[i]!;
    const verdict = g.limiter.check(
      new LazyRequestView(
        request.method,
        route,
        request.ip,
        g.limiter.userOf(request),
        request,
        fastifyHeaders,
      ),
    );
    if (verdict === undefined) continue;
    if (verdict instanceof Promise) {
      const r = route;
      return verdict.then((v) =>
        v.allowed
          ? runGuards(guards, r, request, reply, i + 1, better(best, v))
          : deny(g, v, request, reply),
      );
    }
    if (!verdict.allowed) return deny(g, verdict, request, reply);
    best = better(best, verdict);
  }
  if (best !== undefined) {
    request.rateLimit = best.decision;
    best.writeHeaders(reply, setHeader, true);
  }
  return true;
}

function better(best: HttpVerdict | undefined, v: HttpVerdict): HttpVerdict {
  return best === undefined || v.decision.remaining < best.decision.remaining ? v : best;
}

function deny(g: Guard, v: HttpVerdict, request: FastifyRequest, reply: FastifyReply): false {
  request.rateLimit = v.decision;
  v.writeHeaders(reply, setHeader, true);
  reply.code(v.statusCode);
  if (g.build !== undefined) reply.send(g.build(request, v));
  else reply.type(v.contentType!).send(v.body);
  return false;
}

/** `reply.header`, given lowercase names (Fastify lowercases every name; these need nothing). */
function setHeader(reply: FastifyReply, name: string, value: string): void {
  reply.header(name, value);
}

/** An `onRequest` / `preHandler` hook running `guards`; `route` undefined: read per request. */
function hookFor(guards: readonly Guard[], route: string | undefined): onRequestHookHandler {
  return function sluiceRateLimit(request, reply, done: HookHandlerDoneFunction) {
    const passed = runGuards(guards, route, request, reply);
    if (passed === true) done();
    else if (passed !== false) passed.then((ok) => ok && done(), done);
  };
}

/** Binds `app.rateLimit()` hooks of a route to its route string (no per-request lookup). */
function bindHooks(hooks: RouteOptions['onRequest'], route: string | undefined) {
  const bind = (h: unknown) => {
    const g = (h as Marked)[kGuard];
    return g === undefined ? h : hookFor([g], route);
  };
  return (Array.isArray(hooks) ? hooks.map(bind) : bind(hooks)) as RouteOptions['onRequest'];
}

const plugin: FastifyPluginCallback<FastifyRateLimitOptions> = (app, options, done) => {
  try {
    setup(app, options);
  } catch (err) {
    return done(err as Error); // avvio does not catch a callback plugin's throw
  }
  done();
};

function setup(app: FastifyInstance, options: FastifyRateLimitOptions): void {
  const global = options.global ?? true;
  if (typeof global !== 'boolean') throw new SluiceConfigError('global', global, 'a boolean');
  const state: State = {
    base: options,
    global: global ? guard(options) : undefined,
    parent: (app as WithState)[kState],
  };
  (app as WithState)[kState] = state;
  if (!app.hasRequestDecorator('rateLimit')) app.decorateRequest('rateLimit', undefined);
  if (!app.hasDecorator('rateLimit')) {
    app.decorate('rateLimit', function (this: FastifyInstance, input?: unknown) {
      const g = guard(merge((this as WithState)[kState]!.base, input));
      return Object.assign(hookFor([g], undefined), { [kGuard]: g });
    });
  }
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    // Only the nearest registration reads the route (it knows the options to inherit).
    if ((this as WithState)[kState] !== state) return;
    const config: RouteRateLimit | undefined = route.config?.rateLimit;
    const key = typeof route.method === 'string' ? `${route.method} ${route.url}` : undefined;
    const guards: Guard[] = [];
    if (config !== false && !isThrottleSkipped(route.handler)) {
      for (let s: State | undefined = state; s !== undefined; s = s.parent) {
        if (s.global !== undefined) guards.unshift(s.global);
      }
    }
    if (config !== undefined && config !== false) guards.push(guard(merge(state.base, config)));
    if (route.onRequest) route.onRequest = bindHooks(route.onRequest, key);
    if (route.preHandler) route.preHandler = bindHooks(route.preHandler, key) as never;
    if (guards.length === 0) return;
    const hook = hookFor(guards, key);
    const own = route.onRequest;
    route.onRequest =
      own === undefined ? [hook] : Array.isArray(own) ? [...own, hook] : [own, hook];
  });
}

/**
 * The Fastify plugin: `await app.register(rateLimit, options)` (see
 * {@link FastifyRateLimitOptions}). Built with `fastify-plugin`, so it is not encapsulated:
 * it limits every route registered **after** it in the context it is registered in and that
 * context's children (register it with `await`, before the routes, as @fastify/rate-limit).
 *
 * - Global limit (`options.limit`, default `'throttle:60,1'`): an `onRequest` hook added to
 *   each such route when it is registered (route key `METHOD /pattern`, computed once),
 *   except routes with `config: { rateLimit: false }` and `@SkipThrottle()` handlers.
 * - `config: { rateLimit: … }` on a route (see `RouteRateLimit`): an extra limit for that
 *   route, read once when the route is registered; options left out are inherited.
 * - `app.rateLimit(limitOrOptions?)`: an `onRequest` / `preHandler` hook for one route.
 * - The subject is `request.user?.id` (option `user`), else `request.ip` (so Fastify's
 *   `trustProxy` applies). `request.rateLimit` is the decision.
 * - A denied request gets the core's headers, `Retry-After` and body (status 429, JSON)
 *   or `errorResponseBuilder`'s; the handler does not run.
 *
 * Registering it again in the same context or a child context adds that registration's
 * global limit to the routes registered after it (each limit counts separately, a key two
 * limits share is charged once); route config and `app.rateLimit()` inherit from the
 * nearest registration.
 *
 * Semantics follow DESIGN §4–§7, @fastify/rate-limit (plugin shape, `global`,
 * `errorResponseBuilder`, per-route `config.rateLimit`) and Laravel `ThrottleRequests`
 * (throttle strings, named limiters).
 *
 * @throws `SluiceConfigError` (from @sluice/core) from `register` for an invalid option,
 *   and from route registration for an invalid `config.rateLimit`; never on a request.
 *   Errors of user callbacks (`user`, `key`, `skip`, `onLimited`, `message`,
 *   `errorResponseBuilder`, named limiters) go to Fastify's error handling.
 */
export const rateLimit: FastifyPluginCallback<FastifyRateLimitOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@sluice/fastify',
});
