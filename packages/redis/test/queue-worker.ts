// A worker process of queue-processes.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', port }          worker -> { type: 'ready' }
//   parent -> { type: 'run', n, booking }      worker -> { type: 'result', rows }
// Each run calls `acquire` `n` times at once on one shared key of one standalone Redis
// (server clock), GCRA 10/s burst 1, timeout 15 s. With `booking`, acquire is a reservation
// plus the wait (RedisStore.reserve); without it, the store is handed over without `reserve`,
// so acquire runs the retry loop it had before reservations (the comparison).
import { gcra, RateLimiter, type Store } from '@sluice/core';
import { chargeTimeOf } from '@sluice/core/store';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

let booking: RateLimiter;
let retrying: RateLimiter;

/** One request: when Redis booked it (its TIME) and its slot, and when it was released. */
export interface Row {
  allowed: boolean;
  bookedAt: number;
  slot: number;
  releasedAt: number;
}

async function run(n: number, withBooking: boolean): Promise<Row[]> {
  const limiter = withBooking ? booking : retrying;
  return Promise.all(
    Array.from({ length: n }, async () => {
      const d = await limiter.acquire('queue', { timeoutMs: 15_000 });
      const releasedAt = performance.timeOrigin + performance.now();
      const bookedAt = chargeTimeOf(d) ?? Number.NaN;
      // TAT′ − τ on Redis's clock: the booked TAT is resetAfterMs after the booking, τ 100 ms.
      return { allowed: d.allowed, bookedAt, slot: bookedAt + d.resetAfterMs - 100, releasedAt };
    }),
  );
}

process.on('message', (message: { type: string; port?: number; n?: number; booking?: boolean }) => {
  void (async () => {
    try {
      if (message.type === 'setup') {
        const store = new RedisStore({
          client: new Redis({ port: message.port!, host: '127.0.0.1' }),
        });
        await store.ready();
        const algorithm = gcra({ rate: 10, period: '1s', burst: 1 });
        const strict = { onStoreError: 'deny' as const, overLimitCache: false as const };
        booking = new RateLimiter({ algorithm, store, ...strict });
        const withoutReserve: Store = {
          consume: (k, a, c, now) => store.consume(k, a, c, now),
          reset: (k) => store.reset(k),
        };
        retrying = new RateLimiter({ algorithm, store: withoutReserve, ...strict });
        process.send!({ type: 'ready' });
      } else if (message.type === 'run') {
        process.send!({ type: 'result', rows: await run(message.n!, message.booking!) });
      }
    } catch (error) {
      process.send!({ type: 'error', error: String(error) });
    }
  })();
});
