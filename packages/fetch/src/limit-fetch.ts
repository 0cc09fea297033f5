import { SluiceConfigError } from '@sluice/core';
import { runtimeName } from './ip.js';
import type { FetchLimitOptions } from './limiter.js';
import { fetchPipeline } from './limiter.js';

/** Options of {@link limitFetch}: {@link FetchLimitOptions} with `ip` required. */
export interface LimitFetchOptions extends FetchLimitOptions {
  /** How the client IP is found: required (there is no safe default behind a proxy). */
  ip: NonNullable<FetchLimitOptions['ip']>;
  /**
   * Keeps the settling of held charges alive after the response (Next's `after`); default:
   * the handler's `ctx.waitUntil` when its third argument has one (Workers).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The matched route pattern of the wrapped handler (`'/users/:id'`): a per-route limit. */
  route?: string;
}

/** `ctx.waitUntil` of a Workers-style `(req, env, ctx)` handler, bound. */
function waitUntilOf(ctx: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const fn = (ctx as { waitUntil?: unknown } | undefined)?.waitUntil;
  return typeof fn === 'function'
    ? (promise) => (fn as (p: Promise<unknown>) => void).call(ctx, promise)
    : undefined;
}

/**
 * Wraps a fetch handler (`(req, ...rest) => Response`) in a rate limit: a denied request is
 * answered 429 (`Retry-After`, the rate-limit headers, the JSON or problem+json body) and
 * the handler does not run; an allowed one gets the headers on the handler's response.
 * The handler's second argument is what the `ip` resolver reads (Bun's `server`, Deno's
 * `info`, `@hono/node-server`'s `{ incoming }`); a third with `waitUntil` (Workers' `ctx`)
 * keeps the settling of held charges alive. A client IP that cannot be resolved throws a
 * `SluiceConfigError`, which the runtime answers 500.
 *
 * @param handler - the fetch handler to limit.
 * @param options - see {@link LimitFetchOptions}; `ip` is required.
 * @returns a handler of the same shape.
 * @throws `SluiceConfigError` at creation for a missing `ip` or any invalid option.
 * @example Bun.serve({ fetch: limitFetch(app, { limit: '60/min', ip: ip.bun() }) });
 * @example Deno.serve(limitFetch(handler, { limit: 'throttle:60,1', ip: ip.deno() }));
 */
export function limitFetch<Rest extends unknown[]>(
  handler: (req: Request, ...rest: Rest) => Response | Promise<Response>,
  options: LimitFetchOptions,
): (req: Request, ...rest: Rest) => Promise<Response> {
  return wrapHandler(handler, options, {
    where: 'limitFetch()',
    noIp: 'the resolver of your runtime (ip.bun(), ip.deno(), ip.node(), ip.cloudflare(), ip.vercel()) or, behind your own proxies, ip.forwardedFor({ trustedHops }); there is no safe default',
    // Workers: `(req, env, ctx)`, `ctx.waitUntil`.
    waitUntilOf: (rest) => waitUntilOf(rest[1]),
  });
}

/** How {@link wrapHandler} differs between `limitFetch` and `withRateLimit`. */
export interface WrapSpec {
  /** The call, for messages. */
  where: string;
  /** What the message of a missing `ip` recommends. */
  noIp: string;
  /** The runtime's `waitUntil`, from the handler's arguments after the request. */
  waitUntilOf(rest: readonly unknown[]): ((promise: Promise<unknown>) => void) | undefined;
}

/**
 * A fetch handler wrapped in a rate limit: options parsed once (`ip` required, `waitUntil`,
 * `route`), then per request the check, the 429 or the handler's response with the headers
 * (its held charges settled when its body is done, or at once when it throws).
 * @throws `SluiceConfigError` at creation for a missing `ip` or any invalid option.
 */
export function wrapHandler<Rest extends unknown[]>(
  handler: (req: Request, ...rest: Rest) => Response | Promise<Response>,
  options: LimitFetchOptions,
  spec: WrapSpec,
): (req: Request, ...rest: Rest) => Promise<Response> {
  if (typeof handler !== 'function') {
    throw new SluiceConfigError('handler', handler, 'a fetch handler (req, ...rest) => Response');
  }
  const { pipeline, own } = fetchPipeline(
    options,
    'route',
    spec.where,
    ['waitUntil', 'route'],
    runtimeName,
  );
  if (options.ip === undefined) {
    throw new SluiceConfigError('ip', undefined, 'an IP resolver', {
      message: `sluice: ${spec.where} needs the "ip" option: ${spec.noIp}`,
    });
  }
  const waitUntil = own.waitUntil as LimitFetchOptions['waitUntil'];
  if (waitUntil !== undefined && typeof waitUntil !== 'function') {
    throw new SluiceConfigError('waitUntil', waitUntil, 'a function (promise) => void');
  }
  const route = own.route as string | undefined;
  if (route !== undefined && (typeof route !== 'string' || !route.startsWith('/'))) {
    throw new SluiceConfigError('route', route, "a route pattern such as '/users/:id'");
  }
  return async (req, ...rest) => {
    const verdict = await pipeline.check(req, {
      env: rest[0],
      route,
      waitUntil: waitUntil ?? spec.waitUntilOf(rest),
    });
    if (!verdict.allowed) return verdict.response!;
    let response: Response;
    try {
      response = await handler(req, ...rest);
    } catch (error) {
      verdict.abandon();
      throw error;
    }
    return verdict.apply(response);
  };
}
