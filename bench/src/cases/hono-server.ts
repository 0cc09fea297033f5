/**
 * One server of `pnpm bench:hono` (see ../hono.ts): a Hono hello-world (`GET /` answering
 * `hello world`) on Node through @hono/node-server, unlimited or behind one limiter, started
 * by the parent with an IPC channel (pinned to one core with `taskset`), answering
 * `{ type: 'start' }` / `{ type: 'stop' }` with its CPU use as http-server.ts does.
 *
 * Variants: `none` (unlimited); `headers` (a middleware that only sets the three
 * X-RateLimit-* headers: the floor any limiter pays); `sluice` (@sluice/hono `rateLimit`,
 * memory store, keyed by the socket's address); `peer` (hono-rate-limiter with its memory
 * store, keyed by the same address). Both limiters allow 1e9 per minute (never deny) and
 * send their default headers.
 */
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { rateLimit } from '@sluice/hono';
import { Hono, type MiddlewareHandler } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';

const HONO_VARIANTS = ['none', 'headers', 'sluice', 'peer'] as const;
type HonoVariant = (typeof HONO_VARIANTS)[number];

const QUOTA = 1e9;

function limiterOf(variant: HonoVariant): MiddlewareHandler | undefined {
  switch (variant) {
    case 'none':
      return undefined;
    case 'headers':
      // Before next(): Hono puts them in the response as it is made (after, it copies it).
      return async (c, next) => {
        c.header('X-RateLimit-Limit', String(QUOTA));
        c.header('X-RateLimit-Remaining', String(QUOTA - 1));
        c.header('X-RateLimit-Reset', String(Math.ceil(Date.now() / 1000) + 60));
        await next();
      };
    case 'sluice':
      return rateLimit({ limit: perMinute(QUOTA) });
    case 'peer':
      return rateLimiter({
        windowMs: 60_000,
        limit: QUOTA,
        keyGenerator: (c) => getConnInfo(c).remote.address ?? '',
      });
  }
}

/** `n` per minute as a throttle string. */
function perMinute(n: number): string {
  return `throttle:${n},1`;
}

async function main(): Promise<void> {
  const variant = process.argv[2] as HonoVariant;
  if (!HONO_VARIANTS.includes(variant) || process.send === undefined) {
    console.error('usage: started by bench/src/hono.ts with an IPC channel: <variant>');
    process.exit(2);
  }
  const app = new Hono();
  const limiter = limiterOf(variant);
  if (limiter !== undefined) app.use(limiter);
  app.get('/', (c) => c.text('hello world'));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    let start = process.cpuUsage();
    process.on('message', (msg: { type: string }) => {
      if (msg.type === 'start') start = process.cpuUsage();
      else if (msg.type === 'stop') {
        const d = process.cpuUsage(start);
        process.send!({ type: 'cpu', us: d.user + d.system });
      }
    });
    process.on('disconnect', () => process.exit(0));
    process.send!({ type: 'ready', port: info.port });
  });
  void server;
}

await main();
