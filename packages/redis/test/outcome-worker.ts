// A worker process of outcome-processes.test.ts (run through ts-worker.cjs). Protocol over IPC:
//   parent -> { type: 'setup', port }                   worker -> { type: 'ready' }
//   parent -> { type: 'run', step, key, n }             worker -> { type: 'result', ... }
// Every step runs `n` calls at once on `key` of one standalone Redis, with the store's
// default server clock (Redis TIME), and reports what was admitted.
import { concurrency, type Decision, gcra, Limit, RateLimiter } from '@sluice/core';
import { limitAlgorithm } from '@sluice/core/store';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

export type Step =
  /** consume then give back at once (successful logins under skipSuccessfulRequests). */
  | 'succeed'
  /** consume and keep (failed logins). */
  | 'fail'
  /** consume on a limit of 5/min blocking 15 min (x2 backoff). */
  | 'offend'
  /** take a lease of concurrent(2) and hold it. */
  | 'lease'
  /** release every lease this process holds. */
  | 'release'
  /** take a lease of concurrent(2, { leaseMs: 1500 }) and hold it (until killed). */
  | 'short-lease';

export interface StepResult {
  type: 'result';
  allowed: number;
  /** Retry-After seconds of each denial. */
  retries: number[];
  failures: string[];
}

let store: RedisStore;
const held: { limiter: RateLimiter; key: string; d: Decision }[] = [];

function limiterFor(step: Step, failures: string[]): RateLimiter {
  const algorithm =
    step === 'offend'
      ? limitAlgorithm(Limit.perMinute(5).blockFor('15m', { backoff: 2 }))!
      : step === 'lease'
        ? concurrency({ limit: 2 })
        : step === 'short-lease'
          ? concurrency({ limit: 2, leaseMs: 1500 })
          : gcra({ rate: 5, period: '1m' });
  return new RateLimiter({
    algorithm,
    store,
    onStoreError: 'deny',
    overLimitCache: false,
    logger: { warn: (m) => failures.push(m) },
  });
}

async function run(step: Step, key: string, n: number): Promise<StepResult> {
  const failures: string[] = [];
  if (step === 'release') {
    const leases = held.splice(0);
    await Promise.all(leases.map((l) => l.limiter.refund(l.key, { charge: l.d })));
    return { type: 'result', allowed: leases.length, retries: [], failures };
  }
  const limiter = limiterFor(step, failures);
  const decisions = await Promise.all(
    Array.from({ length: n }, async () => {
      const d = await limiter.consume(key);
      if (d.allowed && step === 'succeed') await limiter.refund(key, { charge: d });
      if (d.allowed && (step === 'lease' || step === 'short-lease')) held.push({ limiter, key, d });
      return d;
    }),
  );
  return {
    type: 'result',
    allowed: decisions.filter((d) => d.allowed).length,
    retries: decisions.filter((d) => !d.allowed).map((d) => Math.ceil(d.retryAfterMs / 1000)),
    failures,
  };
}

process.on(
  'message',
  (message: { type: string; port?: number; step?: Step; key?: string; n?: number }) => {
    void (async () => {
      try {
        if (message.type === 'setup') {
          store = new RedisStore({ client: new Redis({ port: message.port!, host: '127.0.0.1' }) });
          process.send!({ type: 'ready' });
        } else if (message.type === 'run') {
          process.send!(await run(message.step!, message.key!, message.n!));
        } else if (message.type === 'exit') {
          process.exit(0);
        }
      } catch (error) {
        process.send!({ type: 'error', error: String(error) });
      }
    })();
  },
);
