// bench:redis's over-limit section: decisions/s and script calls per decision for keys over their limit,
// with and without the over-limit cache, and on the allow path, where the cache must cost nothing.
import { gcra, RateLimiter, type Store } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RedisStore } from '@sluice/redis';
import { scriptCalls } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { GCRA_CONFIG, gcraAlgo, measureRate, median } from './common.js';

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

interface Subject {
  label: string;
  path: 'deny' | 'allow';
  cache: boolean;
  client: Redis;
  limiter: RateLimiter;
  keys: string[];
  rates: number[];
  calls: number;
  decisions: number;
  /** RedisStore.consume calls so far. */
  storeCalls: number;
  storeCallsMeasured: number;
}

/** `{ decisions, rate }` with `inflight` consumes outstanding for `ms`. */
async function run(
  s: Subject,
  ms: number,
  inflight: number,
): Promise<{ decisions: number; rate: number }> {
  const want = s.path === 'allow';
  let decisions = 0;
  const consume = async (key: string) => {
    const d = await s.limiter.consume(key);
    if (d.allowed !== want) throw new Error(`${s.label}: allowed = ${d.allowed}`);
    decisions++;
  };
  return { rate: await measureRate(consume, s.keys, ms, inflight), decisions };
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
  const make = (label: string, path: 'deny' | 'allow', cache: boolean): Subject => {
    const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: true });
    const algorithm: Algorithm = path === 'deny' ? over : gcraAlgo();
    const redis = new RedisStore({ client });
    // Counts the decisions that reach Redis; the same thin wrapper on every subject.
    const store: Store = {
      consume: (key, a, cost, now) => {
        subject.storeCalls++;
        return redis.consume(key, a, cost, now);
      },
      reset: (key) => redis.reset(key),
    };
    const limiter = new RateLimiter({
      algorithm,
      store,
      prefix: `ol-${path}-${cache}`,
      onStoreError: 'deny',
      logger,
      ...(cache ? {} : { overLimitCache: false as const }),
    });
    const keys = Array.from({ length: keyCount }, (_, i) => `user:${i}`);
    const subject: Subject = {
      label,
      path,
      cache,
      client,
      limiter,
      keys,
      rates: [],
      calls: 0,
      decisions: 0,
      storeCalls: 0,
      storeCallsMeasured: 0,
    };
    return subject;
  };
  const subjects = [
    make('over the limit, over-limit cache (default)', 'deny', true),
    make('over the limit, overLimitCache: false', 'deny', false),
    make('allow, over-limit cache (default)', 'allow', true),
    make('allow, overLimitCache: false', 'allow', false),
  ];
  try {
    for (const s of subjects) {
      if (s.path === 'deny') {
        // Use up every key, then one denial per key, one call at a time: cached denials answer in
        // microtasks and would hold back the setImmediate that sends other keys' batches.
        for (const key of s.keys) await s.limiter.consume(key);
        for (const key of s.keys) await s.limiter.consume(key);
      }
      await run(s, Math.min(ms, 1000), inflight); // warm-up, not counted
    }
    for (let r = 0; r < rounds; r++) {
      for (const s of subjects) {
        const before = await scriptCalls(stats);
        const storeBefore = s.storeCalls;
        const { decisions, rate } = await run(s, ms, inflight);
        s.calls += (await scriptCalls(stats)) - before;
        s.storeCallsMeasured += s.storeCalls - storeBefore;
        s.decisions += decisions;
        s.rates.push(rate);
      }
      process.stderr.write(`over-limit round ${r + 1}/${rounds} done\n`);
    }
  } finally {
    for (const s of subjects) s.client.disconnect();
    stats.disconnect();
  }
  if (failures.length > 0) throw new Error(`the store failed: ${failures.join('; ')}`);
  const rows = subjects.map((s) => ({
    label: s.label,
    path: s.path,
    cache: s.cache,
    rate: median(s.rates),
    rounds: s.rates,
    storeCallsPerDecision: s.storeCallsMeasured / s.decisions,
    scriptCallsPerDecision: s.calls / s.decisions,
  }));
  const [denyOn, denyOff, allowOn, allowOff] = rows as [
    (typeof rows)[0],
    (typeof rows)[0],
    (typeof rows)[0],
    (typeof rows)[0],
  ];
  const report: OverLimitReport = {
    config: `deny: gcra({ rate: 1, period: "1h", burst: 1 }), every key used up; allow: ${GCRA_CONFIG}; RedisStore (server clock), auto-pipelining, ${inflight} in flight over ${keyCount} keys, median of ${rounds} interleaved rounds of ~${ms} ms`,
    rows,
    denySpeedup: denyOn.rate / denyOff.rate,
    allowRatio: allowOn.rate / allowOff.rate,
  };
  return report;
}
