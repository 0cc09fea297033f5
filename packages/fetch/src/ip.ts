import { SluiceConfigError } from '@sluice/core';
import { isIpText, type ProxyTrust } from '@sluice/core/http';

/** The longest text an IP address is written in (IPv6 with an IPv4 tail and a zone). */
const MAX_IP_TEXT = 64;

/**
 * How a fetch-standard server finds the client IP of a request: `(req, env) => ip`, `env`
 * being the handler's second argument (Bun's `server`, Deno's `info`, `@hono/node-server`'s
 * `{ incoming }`, Hono's `c.env`). `undefined` (or `''`) when it cannot tell: the request is
 * then a `SluiceConfigError` (answered 500), never a bucket shared by every client.
 *
 * `proxyTrust` says what the resolver believes of the proxies in front of the app, for the
 * `validate` warnings (`'none'`: the connection's own address; `'some'`: a fixed number of
 * your proxies; `'all'`: whatever the client wrote, which it can forge). Undefined: it
 * cannot tell, and no proxy warning is given.
 *
 * @example
 * const fromHeader: IpResolver = (req) => req.headers.get('x-real-ip') ?? undefined;
 */
export interface IpResolver {
  (req: Request, env?: unknown): string | undefined;
  /** What the resolver trusts of the proxies in front of the app (for `validate`). */
  readonly proxyTrust?: ProxyTrust;
}

function resolver(
  fn: (req: Request, env?: unknown) => string | undefined,
  proxyTrust: ProxyTrust,
): IpResolver {
  return Object.assign(fn, { proxyTrust });
}

/** `value.key`, when `value` is an object. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** A header's value, when `req` has it. */
function header(req: Request, name: string): string | undefined {
  return req.headers.get(name)?.trim() || undefined;
}

/**
 * Bun: the address of the connection, from `server.requestIP(req)` (`Bun.serve`'s handler
 * gets `server` as its second argument; Hono on Bun passes it as `c.env`).
 * @example Bun.serve({ fetch: limitFetch(handler, { ip: ip.bun(), limit: '60/min' }) });
 */
function bun(): IpResolver {
  return resolver((req, server) => {
    const requestIP = field(server, 'requestIP');
    if (typeof requestIP !== 'function') return undefined;
    const address = field(requestIP.call(server, req), 'address');
    return typeof address === 'string' ? address : undefined;
  }, 'none');
}

/**
 * Deno: the address of the connection, from `info.remoteAddr.hostname` (`Deno.serve`'s
 * handler gets `info` as its second argument; Hono on Deno passes it as `c.env`).
 * @example Deno.serve(limitFetch(handler, { ip: ip.deno(), limit: '60/min' }));
 */
function deno(): IpResolver {
  return resolver((_req, info) => {
    const hostname = field(field(info, 'remoteAddr'), 'hostname');
    return typeof hostname === 'string' ? hostname : undefined;
  }, 'none');
}

/** What `@hono/node-server` passes as the handler's second argument (what is read of it). */
interface NodeEnv {
  incoming?: { socket?: { remoteAddress?: unknown } | null } | null;
}

/**
 * Node through `@hono/node-server` (its handler's second argument is `{ incoming }`, Node's
 * `IncomingMessage`): the socket's remote address.
 * @example serve({ fetch: limitFetch(handler, { ip: ip.node(), limit: '60/min' }) });
 */
function node(): IpResolver {
  return resolver((_req, env) => {
    // perf: plain property reads, each site seeing one shape (`field`'s keyed reads, shared
    // by every resolver, go megamorphic: 0.5 µs a request on @hono/node-server).
    const address = (env as NodeEnv | null | undefined)?.incoming?.socket?.remoteAddress;
    return typeof address === 'string' ? address : undefined;
  }, 'none');
}

/**
 * Cloudflare Workers: `CF-Connecting-IP`, which Cloudflare's edge sets to the address that
 * connected to it (and replaces when a client sends its own). Only behind Cloudflare: a
 * server reachable directly would take the header from the client.
 */
function cloudflare(): IpResolver {
  return resolver((req) => header(req, 'cf-connecting-ip'), 'some');
}

/**
 * Vercel (Next.js route handlers, `proxy.ts`, Edge and Node functions): `X-Real-IP`, which
 * Vercel's edge sets to the client's address (what `@vercel/functions`' `ipAddress` reads).
 * Only on Vercel: elsewhere the client could send the header itself.
 */
function vercel(): IpResolver {
  return resolver((req) => header(req, 'x-real-ip'), 'some');
}

/** Options of {@link ip.forwardedFor}. */
export interface ForwardedForOptions {
  /**
   * How many proxies of yours stand in front of the app, each appending to
   * `X-Forwarded-For` the address that connected to it (as Express's numeric
   * `trust proxy`): the client is the entry the outermost of them appended, the
   * `trustedHops`-th from the right. Entries left of it were written by the client and are
   * never used. A request with fewer entries did not come through your proxies, and an
   * entry that is empty or not an IP address (`not-an-ip`, `999.1.1.1`) is no address: such
   * a request has no IP (a `SluiceConfigError`, 500), never a bucket of the text's own.
   */
  trustedHops: number;
}

/**
 * Behind your own proxies (a load balancer, nginx): the client IP from `X-Forwarded-For`,
 * counted from the right (see {@link ForwardedForOptions.trustedHops}), never the client's
 * own left-most entry.
 * @throws `SluiceConfigError` naming `trustedHops` unless a positive integer.
 * @example ip.forwardedFor({ trustedHops: 1 }) // one load balancer in front
 */
function forwardedFor(options: ForwardedForOptions): IpResolver {
  const hops = (options as Partial<ForwardedForOptions> | undefined)?.trustedHops;
  if (typeof hops !== 'number' || !Number.isInteger(hops) || hops < 1) {
    throw new SluiceConfigError('trustedHops', hops, 'a positive integer (your proxies in front)');
  }
  return resolver((req) => {
    const list = req.headers.get('x-forwarded-for');
    if (list === null) return undefined;
    const entries = list.split(',');
    if (entries.length < hops) return undefined;
    const hop = entries[entries.length - hops]!.trim();
    // Not an address (`not-an-ip`, `999.1.1.1`, 5,000 digits): no IP, as an empty hop.
    return hop.length <= MAX_IP_TEXT && isIpText(hop) ? hop : undefined;
  }, 'some');
}

/**
 * The client-IP resolvers of each runtime. None is a default behind a proxy: which header
 * to believe depends on what stands in front of the app, and a wrong guess lets a client
 * pick its own bucket (or puts every client in one).
 */
export const ip = {
  /** Bun: the connection's address, from `server.requestIP(req)` (the handler's second argument). */
  bun,
  /** Deno: the connection's address, from `info.remoteAddr.hostname` (the handler's second argument). */
  deno,
  /** Node through `@hono/node-server`: the socket's address, from `{ incoming }` (the handler's second argument). */
  node,
  /** Cloudflare (Workers): `CF-Connecting-IP`, which Cloudflare's edge sets; only behind Cloudflare. */
  cloudflare,
  /** Vercel: `X-Real-IP`, which Vercel's edge sets; only on Vercel. */
  vercel,
  /** Behind `trustedHops` proxies of yours: the `trustedHops`-th `X-Forwarded-For` entry from the right. */
  forwardedFor,
} as const;

/** A runtime as the `ip` error names it (see {@link runtimeName}). */
export type RuntimeName = 'Bun' | 'Deno' | 'workerd' | 'Node' | 'unknown';

/**
 * The runtime the process runs on, from its globals (`Bun`, `Deno`, `navigator.userAgent`
 * as Hono's `getRuntimeKey` reads it, `process.versions.node`), read when asked, never at
 * module scope.
 * @param g - the global object to read (default `globalThis`; a test passes a fake).
 */
export function runtimeName(g: object = globalThis): RuntimeName {
  const o = g as {
    Bun?: unknown;
    Deno?: unknown;
    navigator?: { userAgent?: unknown };
    process?: { versions?: { node?: unknown } };
  };
  const agent = String(o.navigator?.userAgent);
  return o.Bun || agent.startsWith('Bun/')
    ? 'Bun'
    : o.Deno || agent.startsWith('Deno/')
      ? 'Deno'
      : agent === 'Cloudflare-Workers'
        ? 'workerd'
        : o.process?.versions?.node
          ? 'Node'
          : 'unknown';
}

/**
 * The message of a request whose client IP the `ip` resolver could not tell: the runtime
 * detected and the resolver for it. A request served through `@hono/node-server` (its `env`
 * is `{ incoming }`), on Bun and Deno too, is told `ip.node()`: that server hands over
 * Node's socket, not Bun's `server` or Deno's `info`.
 * @param env - the handler's second argument; `runtime` the runtime detected.
 */
export function noIpMessage(env: unknown, runtime: RuntimeName): string {
  // Each runtime's resolver is its name in lower case (workerd: Cloudflare's).
  const via = field(env, 'incoming') === undefined ? runtime : 'node';
  const resolver =
    via === 'unknown'
      ? 'bun(), ip.deno(), ip.node(), ip.cloudflare(), ip.vercel'
      : via === 'workerd'
        ? 'cloudflare'
        : via.toLowerCase();
  return `sluice: the client IP of this request could not be resolved (option "ip") on ${runtime}: pass ip.${resolver}(), or ip.forwardedFor({ trustedHops }) behind your proxies; requests are never put in one shared bucket`;
}
