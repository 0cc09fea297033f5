import type { RequestView } from '../../limits/request-view.js';

/**
 * The {@link RequestView} adapters build for each request. `headers` is read from the
 * framework's request only when a callback (`key`, `skip`, a named limiter…) asks for it:
 * on Express 5 every read of `req` is a slow lookup (see @sluice/express), and most requests
 * never need the headers.
 *
 * Positional parameters, not an options object: it is built on every request.
 *
 * @typeParam Raw - what the adapter reads the request from.
 * @param method - upper-case HTTP method.
 * @param route - `METHOD pattern`, or `'*'` before routing (see {@link RequestView.route}).
 * @param ip - the client IP as the framework reports it.
 * @param userId - the authenticated user's id, if any.
 * @param source - what the adapter reads the request from (its framework's request).
 * @param headersOf - reads the request headers from `source` (lower-case names).
 * @param ledger - see {@link RequestView.ledger}; default `raw`.
 * @param raw - the framework's request as callbacks see it; default `source` (a fetch
 *   adapter's `source` is its per-check record, `raw` the `Request` or Hono's `c`).
 */
export class LazyRequestView<Raw> implements RequestView {
  readonly #source: Raw;
  readonly #headersOf: (source: Raw) => RequestView['headers'];
  readonly raw: unknown;

  // biome-ignore lint/complexity/useMaxParams: perf: one view per request; positional, no options object per call
  constructor(
    readonly method: string,
    readonly route: string,
    readonly ip: string,
    readonly userId: string | number | undefined,
    source: Raw,
    headersOf: (source: Raw) => RequestView['headers'],
    readonly ledger?: object,
    raw: unknown = source,
  ) {
    this.#source = source;
    this.#headersOf = headersOf;
    this.raw = raw;
  }

  /** The request headers, read from the source on each access. */
  get headers(): RequestView['headers'] {
    return this.#headersOf(this.#source);
  }
}
