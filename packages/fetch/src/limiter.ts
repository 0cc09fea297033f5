import type { HttpLimitOptions } from '@sluice/core';
import { SluiceConfigError } from '@sluice/core';
import { type LimiterScope, splitHttpOptions } from '@sluice/core/http';
import type { FetchCall } from './binding.js';
import { type FetchCheckInput, FetchPipeline, type FetchVerdict } from './fetch-pipeline.js';
import { type IpResolver, type RuntimeName, runtimeName } from './ip.js';

/**
 * Options of {@link createFetchLimiter} and {@link limitFetch}: the HTTP options every
 * sluice adapter takes (`limit`, `store`, `headers`, `body`, `skip`…; `user` and
 * `requestWasSuccessful` get the `Request` and the `Response`), plus `ip`.
 */
export interface FetchLimitOptions extends HttpLimitOptions<Request, Response> {
  /**
   * How the client IP is found (see `ip`): `ip.bun()`, `ip.deno()`, `ip.node()`,
   * `ip.cloudflare()`, `ip.vercel()`, `ip.forwardedFor({ trustedHops })` or your own
   * `(req, env) => string | undefined`. Required by `limitFetch`; `createFetchLimiter`
   * can instead be given the IP on each `check`.
   */
  ip?: IpResolver;
}

/**
 * Parses the options of a fetch-standard limiter once: the adapter's `ip` resolver and the
 * core's options, with the callbacks that get the framework's request (`user`,
 * `requestWasSuccessful`) given `context` (the `Request`, or Hono's `c`) instead of the
 * pipeline's own call.
 * @param runtime - the runtime detected, named by the error of a request without an IP
 *   (`runtimeName` here; Hono passes its own runtime key's); default `'unknown'`.
 * @throws `SluiceConfigError` for any invalid option, naming it.
 */
export function fetchPipeline<Raw>(
  options: HttpLimitOptions<Raw, Response> & { ip?: IpResolver },
  scope: LimiterScope,
  where: string,
  extra: readonly string[] = [],
  runtime: () => RuntimeName = unknownRuntime,
): { pipeline: FetchPipeline; own: Record<string, unknown> } {
  const [own, core] = splitHttpOptions(options as Record<string, unknown>, ['ip', ...extra], where);
  const ip = own.ip;
  if (ip !== undefined && typeof ip !== 'function') {
    throw new SluiceConfigError('ip', ip, 'an IP resolver (req, env) => string | undefined');
  }
  const { user } = core as HttpLimitOptions<Raw, Response>;
  const translated: HttpLimitOptions<FetchCall, FetchCall> = {
    ...(core as HttpLimitOptions<FetchCall, FetchCall>),
  };
  // `requestWasSuccessful` and `costAfter` units get (context, Response) from the binding.
  if (typeof user === 'function') translated.user = (call) => user(call.context as Raw);
  const pipeline = new FetchPipeline(translated, ip as IpResolver | undefined, scope, runtime);
  return { pipeline, own };
}

/** No runtime detection (what an adapter that knows none passes). */
const unknownRuntime = (): RuntimeName => 'unknown';

/** A limiter for fetch-standard servers (see {@link createFetchLimiter}). */
export interface FetchLimiter {
  /**
   * Checks one request: charges it (once, however many sluice limiters check the same
   * `Request`) and tells whether to run the handler.
   * @param request - the incoming `Request`.
   * @param input - the client IP (else the `ip` option's resolver, given `env`), the matched
   *   route pattern (the limit is then per route: `'GET /users/:id'`; without it one bucket
   *   per client across routes), the user id, `waitUntil`.
   * @throws `SluiceConfigError` (answer 500) when the IP cannot be resolved, or when `user`
   *   returns a value of the wrong kind; what a user callback throws.
   */
  check(request: Request, input?: FetchCheckInput): Promise<FetchVerdict>;
}

/**
 * A limiter for any `Request → Response` server (Bun.serve, Deno.serve, Workers, Next.js,
 * h3, Elysia): call `check` first, answer `verdict.response` when denied, else
 * `verdict.apply(await handler(req))`. The same meaning as the Express adapter: keys,
 * headers, the 429 body, stacking, failure policy all come from the core.
 *
 * @param options - see {@link FetchLimitOptions}; default limit `'throttle:60,1'`. Without
 *   a `store`, the limiter has a `MemoryStore` of its own.
 * @throws `SluiceConfigError` at creation for any invalid option, naming it.
 * @example
 * const limiter = createFetchLimiter({ limit: '10/min', ip: ip.bun() });
 * Bun.serve({
 *   async fetch(req, server) {
 *     const verdict = await limiter.check(req, { env: server });
 *     if (!verdict.allowed) return verdict.response!;
 *     return verdict.apply(new Response('hello'));
 *   },
 * });
 */
export function createFetchLimiter(options: FetchLimitOptions = {}): FetchLimiter {
  const { pipeline } = fetchPipeline(options, 'route', 'createFetchLimiter()', [], runtimeName);
  return { check: (request, input) => pipeline.check(request, input) };
}
