// A worker process of cost-processes.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', port }          worker -> { type: 'ready' }
//   parent -> { type: 'run', seed, n }         worker -> { type: 'result', units, admitted }
// Each run sends `n` requests at once through an HTTP limiter with a `costAfter` limit on one
// shared key of one standalone Redis (server clock), and settles each admitted one with its
// response's units: some below the upfront charge (given back), some above it (charged past it).
import { Limit, type Store } from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { Redis } from 'ioredis';
// The pipeline's own pieces, below the adapters' surface: this worker stands in for an adapter.
import { type HeldCharge, settle } from '../../core/src/http/limiter/held.js';
import { LazyRequestView } from '../../core/src/http/request/lazy-view.js';
import { RedisStore } from '../src/index.js';

let limiter: HttpLimiter<{ units: number }>;

async function run(seed: number, n: number) {
  const failures: string[] = [];
  const results = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const req = { units: (seed * 7919 + i * 104_729) % 31 }; // 0..30, reserve 10
      const view = new LazyRequestView('GET', '*', '10.0.0.1', undefined, req, () => ({}), {});
      const v = await limiter.check(view);
      if (v === undefined || !v.allowed) return 0;
      const held = (v as unknown as { held: HeldCharge[] }).held;
      await settle(held, undefined, req, {}, 200, Date.now, {
        warn: (m: string) => failures.push(m),
      });
      return req.units;
    }),
  );
  return {
    type: 'result',
    units: results.reduce((a, b) => a + b, 0),
    admitted: results.filter((u, i) => u > 0 || i >= 0).length,
    failures,
  };
}

process.on('message', (message: { type: string; port?: number; seed?: number; n?: number }) => {
  void (async () => {
    try {
      if (message.type === 'setup') {
        const store: Store = new RedisStore({
          client: new Redis({ port: message.port!, host: '127.0.0.1' }),
        });
        limiter = new HttpLimiter({
          limit: Limit.perHour(1_000_000)
            .by('tenant')
            .named('tokens')
            .costAfter((req: { units: number }) => req.units, { upfront: 10 }),
          algorithm: 'fixed-window',
          store,
          onStoreError: 'deny',
        });
        process.send!({ type: 'ready' });
      } else if (message.type === 'run') {
        process.send!(await run(message.seed!, message.n!));
      } else if (message.type === 'exit') {
        process.exit(0);
      }
    } catch (error) {
      process.send!({ type: 'error', error: String(error) });
    }
  })();
});
