import { type LimitFetchOptions, wrapHandler } from './limit-fetch.js';

/** Options of {@link withRateLimit}: those of `limitFetch` (`ip` required). */
export type WithRateLimitOptions = LimitFetchOptions;

/** `event.waitUntil` of a Next.js `proxy.ts` / middleware `(request, event)`, bound. */
function eventWaitUntil(event: unknown): ((promise: Promise<unknown>) => void) | undefined {
  const fn = (event as { waitUntil?: unknown } | undefined)?.waitUntil;
  return typeof fn === 'function'
    ? (promise) => (fn as (p: Promise<unknown>) => void).call(event, promise)
    : undefined;
}

/**
 * Next.js: limits a route handler (`app/**\/route.ts`: `export const GET = withRateLimit(…)`)
 * or `proxy.ts` (`export const proxy = withRateLimit(() => NextResponse.next(), …)`; the
 * headers go on the response Next continues with). A denied request gets the 429 and the
 * handler does not run. Next gives no socket address to either: pass the `ip` of where the
 * app runs (`ip.vercel()` on Vercel, `ip.forwardedFor({ trustedHops })` behind your proxy).
 * Held charges (leases, outcome-aware counting) are settled after the response under
 * `waitUntil`: `proxy.ts`'s `event.waitUntil` is used by itself; in a route handler pass
 * `waitUntil: after` (from `next/server`).
 *
 * @param handler - the route handler or proxy function, `(req, context) => Response`.
 * @param options - see {@link WithRateLimitOptions}; `route` (`'/api/users/[id]'`) makes
 *   the limit per route.
 * @returns a function of the same shape.
 * @throws `SluiceConfigError` at creation for a missing `ip` or any invalid option.
 * @example
 * // app/api/hello/route.ts
 * import { after } from 'next/server';
 * export const GET = withRateLimit(() => Response.json({ hello: 'world' }), {
 *   limit: '10/min', ip: ip.vercel(), waitUntil: after, route: '/api/hello',
 * });
 */
export function withRateLimit<Context>(
  handler: (req: Request, context: Context) => Response | Promise<Response>,
  options: WithRateLimitOptions,
): (req: Request, context: Context) => Promise<Response> {
  return wrapHandler(handler, options, {
    where: 'withRateLimit()',
    noIp: 'Next.js gives no client address; on Vercel pass ip.vercel(), behind your own proxies ip.forwardedFor({ trustedHops })',
    // proxy.ts: `(request, event)`, `event.waitUntil`.
    waitUntilOf: (rest) => eventWaitUntil(rest[0]),
  });
}
