import type { Gate } from './gate.js';
import type {
  AdapterHarness,
  AppSpec,
  RouteSpec,
  TestClient,
  TestResponse,
} from './http-harness.js';

/**
 * The parts of the behaviour table's harness that fetch-standard adapters (@sluice/fetch,
 * @sluice/hono) share on every runtime: the app under test is a fetch handler
 * `(req, env) => Response`, served by the runtime (Node through @hono/node-server, Bun.serve,
 * Deno.serve) and driven over HTTP with the runtime's own `fetch`. Nothing here imports a
 * Node module, so the same file runs on Node, Bun and Deno.
 */

/** A fetch handler, as the runtimes serve it. */
export type FetchApp = (req: Request, env?: unknown) => Response | Promise<Response>;

/** Serves `app` on 127.0.0.1 (a free port): its URL and how to stop it. */
export type FetchServe = (app: FetchApp) => Promise<{ url: string; close(): Promise<void> }>;

/** `pattern` (`/users/:id/posts`) as a regular expression over a path. */
export function patternRegExp(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * The handler of a table route: counts its runs, waits for its gate, answers `x-status` or
 * 200 with `{ ok: true, rateLimit }`.
 */
export async function answerRoute(
  req: Request,
  runs: Map<string, number>,
  id: string,
  gate: Gate | undefined,
  rateLimit: unknown,
): Promise<Response> {
  runs.set(id, (runs.get(id) ?? 0) + 1);
  if (gate !== undefined) await gate.wait();
  const status = req.headers.get('x-status');
  return Response.json({ ok: true, rateLimit }, { status: status === null ? 200 : Number(status) });
}

/** The bearer token's user id, per the spec (`undefined` without `bearerUser` or a token). */
export function bearerOf(req: Request, spec: AppSpec): unknown {
  if (!spec.bearerUser) return undefined;
  const m = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '');
  if (m === null) return undefined;
  const token = m[1]!;
  return spec.userIds !== undefined && Object.hasOwn(spec.userIds, token)
    ? spec.userIds[token]
    : token;
}

/**
 * The client IP the table's `trustProxy` asks for, over the connection's own address
 * `socket`: `true` trusts the test client as one proxy (the right-most `X-Forwarded-For`
 * entry, as Express's `'loopback'`), `'all'` every hop (the left-most entry, which a client
 * writes itself), otherwise the connection's address. The resolver says which
 * (`proxyTrust`), for the `validate` warnings.
 */
export function tableIp(
  spec: AppSpec,
  socket: (req: Request, env?: unknown) => string | undefined,
): ((req: Request, env?: unknown) => string | undefined) & { proxyTrust: 'none' | 'some' | 'all' } {
  const trust = spec.trustProxy;
  const resolve = (req: Request, env?: unknown) => {
    const list = req.headers.get('x-forwarded-for');
    if (trust === undefined || trust === false || list === null) return socket(req, env);
    const entries = list.split(',').map((e) => e.trim());
    return trust === 'all' ? entries[0] : entries[entries.length - 1];
  };
  const proxyTrust = trust === 'all' ? 'all' : trust === true ? 'some' : 'none';
  return Object.assign(resolve, { proxyTrust } as const);
}

/**
 * A {@link TestClient} over HTTP to `url`, with the runtime's `fetch` (or `send`: e.g. the
 * app called in-process, where `url` is then left out).
 */
export function fetchClient(
  url: string,
  runs: Map<string, number>,
  close: () => Promise<void>,
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
): TestClient {
  return {
    url,
    async request(method, path, headers = {}): Promise<TestResponse> {
      const res = await send(`${url}${path}`, { method, headers });
      const out: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        out[name] = value;
      });
      const text = await res.text();
      const json = /^application\/(problem\+)?json/.test(res.headers.get('content-type') ?? '');
      return {
        status: res.status,
        headers: out,
        body: json && text !== '' ? JSON.parse(text) : text,
      };
    },
    handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
    close,
  };
}

/** Builds the app of a spec: its fetch handler and its handlers' run counts. */
export type FetchAppBuilder = (spec: AppSpec) => { app: FetchApp; runs: Map<string, number> };

/**
 * An {@link AdapterHarness} for a fetch-standard adapter: `build` makes the app of a spec,
 * `serve` puts it on the runtime's HTTP server. `startOutOfReach` builds an app whose
 * global limiter guards `/limited/*` only, and the route elsewhere.
 */
export function fetchHarness(
  name: AdapterHarness['name'],
  build: FetchAppBuilder,
  serve: FetchServe,
  outOfReach: (spec: AppSpec, route: RouteSpec) => { app: FetchApp; runs: Map<string, number> },
): AdapterHarness {
  const start = async ({ app, runs }: { app: FetchApp; runs: Map<string, number> }) => {
    const server = await serve(app);
    return fetchClient(server.url, runs, server.close);
  };
  return {
    name,
    start: (spec) => start(build(spec)),
    startOutOfReach: (spec, route) => start(outOfReach(spec, route)),
  };
}
