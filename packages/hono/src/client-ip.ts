import { type IpResolver, ip } from '@sluice/fetch';
import { getRuntimeKey } from 'hono/adapter';

/**
 * The client IP from the runtime's own connection info, by Hono's runtime key: Bun's
 * `server.requestIP`, Deno's `info.remoteAddr`, `@hono/node-server`'s socket, Cloudflare's
 * `CF-Connecting-IP` on workerd. Never a forwarded header: behind your own proxies, pass
 * `ip: ip.forwardedFor({ trustedHops })`. On another runtime (Fastly, Vercel's edge) there
 * is no default: every request is a `SluiceConfigError` (500) until `ip` is given.
 */
export function runtimeIp(): IpResolver {
  let chosen: IpResolver | null | undefined;
  const resolve = (req: Request, env?: unknown): string | undefined => {
    // Chosen on the first request, not at module scope (Workers refuse work there).
    if (chosen === undefined) chosen = byRuntime(getRuntimeKey()) ?? null;
    return chosen === null ? undefined : chosen(req, env);
  };
  return Object.assign(resolve, { proxyTrust: 'none' as const });
}

/** By Hono's runtime key: the runtime as `@sluice/fetch`'s `ip` error names it, and its resolver. */
const RUNTIMES: Record<string, ['Bun' | 'Deno' | 'Node' | 'workerd', () => IpResolver]> = {
  bun: ['Bun', ip.bun],
  deno: ['Deno', ip.deno],
  node: ['Node', ip.node],
  workerd: ['workerd', ip.cloudflare],
};

function byRuntime(key: string): IpResolver | undefined {
  return RUNTIMES[key]?.[1]();
}

/** The runtime by Hono's runtime key, as `@sluice/fetch`'s `ip` error names it. */
export function honoRuntime(): 'Bun' | 'Deno' | 'workerd' | 'Node' | 'unknown' {
  return RUNTIMES[getRuntimeKey()]?.[0] ?? 'unknown';
}
