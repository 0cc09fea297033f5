// bench:redis's over-limit section: decisions/s and script calls per decision for keys over their limit,
// with and without the over-limit cache, and on the allow path, where the cache must cost nothing.
import { gcra, RateLimiter, type Store } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { scriptCalls } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { GCRA_CONFIG, gcraAlgo, interleave, measureRate, median } from './common.js';

/** The JSON of this section (in `RedisReport.overLimit`). */
export interface OverLimitReport {
  config: string;
  rows: {
    label: string;
    path: 'deny' | 'allow';
    cache: boolean;
    rate: number;
    rounds: number[];
    /** Decisions that reached the RedisStore (a Redis round trip) per decision. */
    storeCallsPerDecision: number;
    /** EVALSHA/EVAL calls Redis answered per decision (a coalesced batch counts once). */
    scriptCallsPerDecision: number;
  }[];
  /** Decisions/s with the cache / without it, on each path. */
  denySpeedup: number;
  allowRatio: number;
}

/** Runs the section: `rounds` rounds of `ms` per subject, `inflight` outstanding, `keyCount` keys. */
export async function overLimitSection(
  port: number,
  rounds: number,
  ms: number,
  inflight: number,
  keyCount: number,
): Promise<OverLimitReport> {
  const stats = new Redis({ port, host: '127.0.0.1' });
  const failures: string[] = [];
  const logger = { warn: (m: string) => void failures.push(m) };
  // Over the limit: 1 per hour, burst 1; each key takes its one unit before the runs.
  const over = gcra({ rate: 1, period: '1h', burst: 1 });
  const keys = Array.from({ length: keyCount }, (_, i) => `user:${i}`);
  const make = (label: string, path: 'deny' | 'allow', cache: boolean) => {
    const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: true });
    const redis = new RedisStore({ client });
    // Counts the decisions that reach Redis; the same thin wrapper on every subject.
    const store: Store = {
      consume: (key, a, cost, now) => {
        s.storeCalls++;
        return redis.consume(key, a, cost, now);
      },
      reset: (key) => redis.reset(key),
    };
    const limiter = new RateLimiter({
      algorithm: path === 'deny' ? over : gcraAlgo(),
      store,
      prefix: `ol-${path}-${cache}`,
      onStoreError: 'deny',
      logger,
      ...(cache ? {} : { overLimitCache: false as const }),
    });
    // Decisions, script and store calls: counted over the measured rounds only.
    const counted = { decisions: 0, script: 0, store: 0 };
    const s = { label, path, cache, client, limiter, storeCalls: 0, counted };
    return s;
  };
  type Subject = ReturnType<typeof make>;
  /** Decisions/s with `inflight` consumes outstanding for `ms`; counted when `count`. */
  const run = async (s: Subject, ms: number, count: boolean) => {
    const [calls0, store0] = [await scriptCalls(stats), s.storeCalls];
    let decisions = 0;
    const consume = async (key: string) => {
      const d = await s.limiter.consume(key);
      if (d.allowed !== (s.path === 'allow')) throw new Error(`${s.label}: allowed = ${d.allowed}`);
      decisions++;
    };
    const rate = await measureRate(consume, keys, ms, inflight);
    if (count) {
      s.counted.decisions += decisions;
      s.counted.script += (await scriptCalls(stats)) - calls0;
      s.counted.store += s.storeCalls - store0;
    }
    return rate;
  };
  const subjects = [
    make('over the limit, over-limit cache (default)', 'deny', true),
    make('over the limit, overLimitCache: false', 'deny', false),
    make('allow, over-limit cache (default)', 'allow', true),
    make('allow, overLimitCache: false', 'allow', false),
  ];
  let figures: number[][];
  try {
    figures = await interleave(subjects, rounds, (s) => run(s, ms, true), {
      label: 'over-limit ',
      warmUp: async (s) => {
        if (s.path === 'deny') {
          // Use up every key, then one denial per key, one call at a time: cached denials answer
          // in microtasks and would hold back the setImmediate that sends other keys' batches.
          for (const key of keys) await s.limiter.consume(key);
          for (const key of keys) await s.limiter.consume(key);
        }
        await run(s, Math.min(ms, 1000), false);
      },
    });
  } finally {
    for (const s of subjects) s.client.disconnect();
    stats.disconnect();
  }
  if (failures.length > 0) throw new Error(`the store failed: ${failures.join('; ')}`);
  const rows = subjects.map((s, i) => ({
    label: s.label,
    path: s.path,
    cache: s.cache,
    rate: median(figures[i]!),
    rounds: figures[i]!,
    storeCallsPerDecision: s.counted.store / s.counted.decisions,
    scriptCallsPerDecision: s.counted.script / s.counted.decisions,
  }));
  const rate = (i: number) => rows[i]!.rate; // deny with and without the cache, then allow
  return {
    config: `deny: gcra({ rate: 1, period: "1h", burst: 1 }), every key used up; allow: ${GCRA_CONFIG}; RedisStore (server clock), auto-pipelining, ${inflight} in flight over ${keyCount} keys, median of ${rounds} interleaved rounds of ~${ms} ms`,
    rows,
    denySpeedup: rate(0) / rate(1),
    allowRatio: rate(2) / rate(3),
  };
}
