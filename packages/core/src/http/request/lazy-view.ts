import type { RequestView } from '../../limits/request-view.js';

/**
 * The {@link RequestView} adapters build for each request. `headers` is read from the
 * framework's request only when a callback (`key`, `skip`, a named limiter…) asks for it:
 * on Express 5 every read of `req` is a slow lookup (see @sluice/express), and most requests
 * never need the headers.
 *
 * Positional parameters, not an options object: it is built on every request.
 *
 * @typeParam Raw - the framework's request object.
 * @param method - upper-case HTTP method.
 * @param route - `METHOD pattern`, or `'*'` before routing (see {@link RequestView.route}).
 * @param ip - the client IP as the framework reports it.
 * @param userId - the authenticated user's id, if any.
 * @param raw - the framework's request (Express `req`, Fastify `request`, Koa `ctx`).
 * @param headersOf - reads the request headers from `raw` (lower-case names).
 * @param ledger - see {@link RequestView.ledger}; default `raw`.
 */
export class LazyRequestView<Raw> implements RequestView {
  readonly #headersOf: (raw: Raw) => RequestView['headers'];

  // biome-ignore lint/complexity/useMaxParams: perf: one view per request; positional, no options object per call
  constructor(
    readonly method: string,
    readonly route: string,
    readonly ip: string,
    readonly userId: string | number | undefined,
    readonly raw: Raw,
    headersOf: (raw: Raw) => RequestView['headers'],
    readonly ledger?: object,
  ) {
    this.#headersOf = headersOf;
  }

  /** The request headers, read from `raw` on each access. */
  get headers(): RequestView['headers'] {
    return this.#headersOf(this.raw);
  }
}
