import { SluiceConfigError } from '@sluice/core';
import { isThrottleSkipped } from '@sluice/core/http';
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
import { auditOf } from './audit.js';
import { type Guard, guard, merge, runGuards } from './guards.js';
import { addOpenApi, markedGuards, markGuards } from './openapi.js';
import type { FastifyRateLimitOptions, RateLimitHook, RouteRateLimitOptions } from './types.js';

/** One plugin registration; `parent` is the registration visible where it was registered. */
interface Registration {
  base: RouteRateLimitOptions;
  global: Guard | undefined;
  parent: Registration | undefined;
  /** `openapi: true` here or on an outer registration. */
  openapi: boolean;
}

const kRegistration = Symbol('sluice.fastify.registration');
type WithRegistration = { [kRegistration]?: Registration };

/** Marks the `config` of every route a registration's `onRoute` read (copied into the route's context). */
const kSeen = Symbol('sluice.fastify.seen');
type SeenConfig = { [kSeen]?: boolean; rateLimit?: unknown };

type Done = HookHandlerDoneFunction;

/** A hook of kind `hook` running `guards` (preParsing passes the payload on). */
function hookFor(guards: readonly Guard[], hook: RateLimitHook) {
  const run = (request: FastifyRequest, reply: FastifyReply, next: () => void, done: Done) => {
    const passed = runGuards(guards, request, reply);
    if (passed === true) next();
    else if (passed !== false) passed.then((ok) => ok && next(), done);
  };
  if (hook === 'preParsing') {
    return function sluiceRateLimit(
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: Error | null, payload?: unknown) => void,
    ) {
      run(request, reply, () => done(null, payload), done as Done);
    };
  }
  return function sluiceRateLimit(request: FastifyRequest, reply: FastifyReply, done: Done) {
    run(request, reply, done, done);
  };
}

/** Appends `fn` to a route's hook list of kind `hook`. */
function addRouteHook(route: RouteOptions, hook: RateLimitHook, fn: unknown): void {
  const r = route as unknown as Record<RateLimitHook, unknown>;
  const own = r[hook];
  r[hook] = own === undefined ? [fn] : Array.isArray(own) ? [...own, fn] : [own, fn];
}

const plugin: FastifyPluginCallback<FastifyRateLimitOptions> = (app, options, done) => {
  // Called as a function or used as a hook (`addHook('onRequest', rateLimit)`): say so,
  // rather than failing on the request's fields as unknown options.
  if (
    typeof done !== 'function' ||
    typeof (app as { register?: unknown })?.register !== 'function'
  ) {
    throw new SluiceConfigError('rateLimit', app, 'a Fastify instance', {
      message:
        'sluice: the @sluice/fastify rateLimit is a plugin, not a hook or a factory: register ' +
        'it with `await app.register(rateLimit, options)` before declaring the routes',
    });
  }
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
  const parent = (app as WithRegistration)[kRegistration];
  const openapi = options.openapi ?? parent?.openapi ?? false;
  if (typeof openapi !== 'boolean') throw new SluiceConfigError('openapi', openapi, 'a boolean');
  // Validates the options either way.
  const pluginGuard = guard(options, 'global', 'the @sluice/fastify plugin options');
  const { global: _global, openapi: _openapi, ...base } = options;
  const registration: Registration = {
    base,
    global: global ? pluginGuard : undefined,
    parent,
    openapi,
  };
  (app as WithRegistration)[kRegistration] = registration;
  const audit = auditOf(app);
  if (!app.hasRequestDecorator('rateLimit')) app.decorateRequest('rateLimit', undefined);
  if (!app.hasDecorator('rateLimit')) {
    app.decorate('rateLimit', function (this: FastifyInstance, input?: unknown) {
      const g = guard(
        merge((this as WithRegistration)[kRegistration]!.base, input),
        'route',
        'app.rateLimit()',
      );
      return markGuards(hookFor([g], 'onRequest'), [g]) as onRequestHookHandler;
    });
  }
  // Routes declared in this context before the plugin loaded (registered without `await`,
  // or after them) were never read by `onRoute`: their requests are refused (see lateRoutes).
  if (app.printRoutes() !== EMPTY_ROUTES) app.addHook('onRequest', lateRoutes(registration));
  // Every store these limits decide in must be ready before the app is: a PostgresStore
  // never migrated fails `app.ready()`, naming migrate(), instead of each request's policy.
  const limiters = [pluginGuard.pipeline.limiter];
  app.addHook('onReady', () => Promise.all(limiters.map((l) => l.ready())).then(() => undefined));
  app.addHook('onRoute', function (this: FastifyInstance, route) {
    route.config = { ...route.config, [kSeen]: true } as typeof route.config;
    // Only the nearest registration reads the route (it knows the options to inherit).
    if ((this as WithRegistration)[kRegistration] !== registration) return;
    audit.taken.add(route);
    const config = route.config?.rateLimit;
    const guards: Guard[] = [];
    if (config !== false && !isThrottleSkipped(route.handler)) {
      for (let s: Registration | undefined = registration; s !== undefined; s = s.parent) {
        if (s.global !== undefined) guards.unshift(s.global);
      }
    }
    if (config !== undefined && config !== false) {
      const own = guard(
        merge(registration.base, config),
        'route',
        `config.rateLimit of ${String(route.method)} ${route.url}`,
      );
      guards.push(own);
      limiters.push(own.pipeline.limiter);
    }
    // The 429 and the headers in the route's schema, for @fastify/swagger (openapi.ts).
    if (registration.openapi) addOpenApi(route, [...guards, ...markedGuards(route)]);
    // One hook per kind, its guards in order (global ones first).
    const kinds = new Map<RateLimitHook, Guard[]>();
    for (const g of guards) kinds.set(g.hook, [...(kinds.get(g.hook) ?? []), g]);
    for (const [hook, list] of kinds) addRouteHook(route, hook, hookFor(list, hook));
  });
}

/** What `printRoutes()` answers before any route is declared (fastify 5). */
const EMPTY_ROUTES = '(empty tree)';

/** The symbol Fastify keeps a request's route context under, looked up on the first request. */
let kContext: symbol | null | undefined;

/** The `config` of the route serving `request` (Fastify's route context's, not a copy). */
function configOf(request: FastifyRequest): SeenConfig | undefined {
  if (kContext === undefined) {
    kContext =
      Object.getOwnPropertySymbols(request).find((s) => s.description === 'fastify.context') ??
      null;
  }
  const context = kContext === null ? undefined : (request as never)[kContext];
  return ((context as { config?: SeenConfig } | undefined)?.config ??
    request.routeOptions.config) as SeenConfig | undefined;
}

/**
 * The `onRequest` hook of a registration loaded after routes of its context were declared
 * (`app.register(rateLimit)` without `await`, or after the routes): such a route got no
 * limit from `onRoute`, so a request to one that asks for a limit (its `config.rateLimit`,
 * or a global limit of this registration or an outer one) is refused with a
 * `SluiceConfigError` through Fastify's error handling (500), never served unlimited in
 * silence. Routes `onRoute` did read pass at once (their config is marked).
 */
function lateRoutes(registration: Registration) {
  const global = (() => {
    for (let s: Registration | undefined = registration; s !== undefined; s = s.parent)
      if (s.global !== undefined) return true;
    return false;
  })();
  return function sluiceLateRoutes(request: FastifyRequest, _reply: FastifyReply, done: Done) {
    const config = configOf(request);
    if (config === undefined || config[kSeen] === true || request.is404) return done();
    const asked = config.rateLimit;
    if (asked === false || (asked === undefined && !global)) {
      config[kSeen] = true; // nothing to limit: pass at once from now on
      return done();
    }
    const route = `${request.method} ${request.routeOptions.url}`;
    done(
      new SluiceConfigError('rateLimit', route, '', {
        message:
          `sluice: the route ${route} asks for a rate limit (${asked === undefined ? 'the global limit' : 'config.rateLimit'}) ` +
          'but was declared before @sluice/fastify was registered in its context (a register ' +
          'without `await`, or after the routes), so no limit was attached to it: register ' +
          'the plugin with `await app.register(rateLimit, options)` before declaring routes',
      }),
    );
  };
}

/**
 * The Fastify plugin: `await app.register(rateLimit, options)` (see
 * {@link FastifyRateLimitOptions}). Built with `fastify-plugin`, so it is not encapsulated:
 * it limits every route registered **after** it in the context it is registered in and that
 * context's children (register it with `await`, before the routes, as @fastify/rate-limit).
 *
 * - Global limit (`options.limit`, default `'throttle:60,1'`): one bucket per subject across
 *   all routes (route segment `*`, as @fastify/rate-limit), run in the `hook` option's
 *   hook (default `onRequest`; `preHandler` to key by a user that authentication sets),
 *   except on routes with `config: { rateLimit: false }` and `@SkipThrottle()` handlers.
 * - `config: { rateLimit: … }` on a route: an extra limit keyed by the route
 *   (`GET /users/:id`, HEAD as GET), read once when the route is registered; options left
 *   out are inherited. A route asking for it where no registration can see it (a sibling
 *   context) fails `ready()` with a `SluiceConfigError`.
 * - A route declared in the plugin's context before the plugin loaded (registered without
 *   `await`, or after the routes) that asks for a limit (`config.rateLimit`, or a global
 *   limit that reaches it) is answered 500 with a `SluiceConfigError`, never served
 *   unlimited. An app that never registers the plugin cannot be detected.
 * - `ready()` waits for the store of the plugin's limit and of every `config.rateLimit`
 *   (`Store.ready`, in an `onReady` hook): a store that cannot decide (a `PostgresStore`
 *   never migrated) fails `app.ready()` / `listen()` with its error (`StoreNotReadyError`
 *   naming `migrate()`). `app.rateLimit()` hooks are made after it and are not checked.
 * - `app.rateLimit(limitOrOptions?)`: an `onRequest` / `preHandler` hook for one route.
 * - `request.rateLimit` is the most restrictive decision; a key two limits share is charged
 *   once. A denied request gets the core's headers, `Retry-After` and body (429, JSON) or
 *   `errorResponseBuilder`'s; the handler does not run.
 *
 * Semantics follow @fastify/rate-limit (plugin shape, `global`,
 * `errorResponseBuilder`, per-route `config.rateLimit`) and Laravel `ThrottleRequests`.
 *
 * @throws `SluiceConfigError` (from @sluice/core) from `register` for an invalid option,
 *   from route registration for an invalid `config.rateLimit`, from `ready()` for a route
 *   no registration saw (and the store's own error from `ready()` when it is not ready); on a request only for a route declared before the plugin loaded
 *   (as a 500 through Fastify's error handling), or when used as a hook.
 * @example await app.register(rateLimit, { limit: 'throttle:60,1', hook: 'preHandler' });
 */
export const rateLimit: FastifyPluginCallback<FastifyRateLimitOptions> = fp(plugin, {
  fastify: '5.x',
  name: '@sluice/fastify',
});
