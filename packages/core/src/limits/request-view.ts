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
