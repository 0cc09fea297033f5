/**
 * The framework-neutral view of an HTTP request that the core's logic and named-limiter
 * resolvers see. Each adapter (Express, Fastify, Koa) builds one per request
 * from the framework's own request; nothing in it is parsed again by the core.
 */
export interface RequestView {
  /** The HTTP method, upper case: `'GET'`, `'POST'`… */
  method: string;
  /**
   * The matched route as `METHOD pattern` (`'GET /users/:id'`), never the raw URL; `'*'`
   * when the framework has not matched a route yet (middleware mounted before the router).
   */
  route: string;
  /** The client IP as the framework reports it (so `trust proxy` rules apply). */
  ip: string;
  /** The authenticated user's id (option `user`, default `req.user?.id`), if any. */
  userId?: string | number;
  /** Request headers, lower-case names (Node's `IncomingHttpHeaders` shape). */
  headers: Record<string, string | string[] | undefined>;
  /** The framework's own request object (Express `req`, Fastify `request`, Koa `ctx`). */
  raw: unknown;
  /**
   * Where the core remembers which keys this request was already charged under (so a
   * request reaching two limiters with the same key is charged once): an object
   * that lives exactly as long as the request, given one symbol-keyed property. Default:
   * `raw`. Express passes `res.locals` (see @sluice/express: a new property on an Express
   * 5 `req` costs a new hidden class per request).
   */
  ledger?: object;
}

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
