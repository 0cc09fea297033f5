/** Reading the framework's own request and response in the table's callbacks, on every adapter. */

/**
 * A request header as the framework's request has it, on every adapter the table runs:
 * Node's `headers` record (Express, Fastify, Koa), a `Request`'s `Headers`, Hono's `c.req`.
 */
export function requestHeader(req: unknown, name: string): string | undefined {
  const r = req as {
    headers?: Record<string, string | undefined> | { get(name: string): string | null };
    req?: { header?(name: string): string | undefined };
  };
  if (typeof r.req?.header === 'function') return r.req.header(name);
  const headers = r.headers;
  if (headers !== undefined && typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  return (headers as Record<string, string | undefined> | undefined)?.[name];
}

/**
 * The status of the framework's response: Node's `statusCode` (Express `res`, Koa's `ctx`
 * through `status`), Fastify's `reply.raw`, a `Response`'s `status`, Hono's `c.res`.
 */
export function responseStatus(res: unknown): number | undefined {
  const r = res as {
    statusCode?: number;
    status?: number;
    raw?: { statusCode?: number };
    res?: { statusCode?: number; status?: number };
  };
  return r.statusCode ?? r.raw?.statusCode ?? r.res?.statusCode ?? r.res?.status ?? r.status;
}
