// `pnpm bench` part `outcome`: what refund and a concurrency lease cost beside the allow path, on the
// memory store and on Redis, as operations/s of one request's worth, medians of interleaved rounds.
import { concurrency, gcra, RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';
import { parseCommand, shared } from './cli/args.js';
import { interleave, measureRate, median, withRedis } from './measure/common.js';
import { finishPart } from './report/render.js';
import type { OutcomeReport } from './report/types.js';

const { values: args } = parseCommand({
  usage: 'node --import tsx src/outcome.ts [options] (a part of pnpm bench)',
  summary:
    "Give-backs and concurrency leases: requests/s of one request's store work (allow, refund, lease) on the memory store and on Redis.",
  options: {
    rounds: shared.rounds(3),
    ms: shared.ms(1000),
    json: shared.json,
  },
});
const { rounds: ROUNDS, ms: MS } = args;

type OutcomeRow = OutcomeReport['rows'][number];

const KEYS = Array.from({ length: 1000 }, (_, i) => `user:${i}`);

function paths(store?: RedisStore) {
  // Prefixes of their own: on Redis the two limiters' keys would otherwise be one key of
  // two types (a GCRA string and a lease sorted set), and every call a WRONGTYPE error.
  const allow = new RateLimiter({
    algorithm: gcra({ rate: 1e6, period: '1s', burst: 1e9 }),
    store,
    prefix: 'allow',
  });
  const leases = new RateLimiter({
    algorithm: concurrency({ limit: 1e6 }),
    store,
    prefix: 'lease',
  });
  return {
    allow: (key: string) => allow.consume(key),
    refund: async (key: string) => {
      const at = Date.now();
      const d = await allow.consume(key);
      await allow.refund(key, { charge: d, atMs: at });
    },
    lease: async (key: string) => {
      const at = Date.now();
      const d = await leases.consume(key);
      await leases.refund(key, { charge: d, atMs: at });
    },
  };
}

async function measure(
  store: 'memory' | 'redis',
  p: ReturnType<typeof paths>,
  inflight: number,
): Promise<OutcomeRow[]> {
  const names = ['allow', 'refund', 'lease'] as const;
  const rounds = await interleave(names, ROUNDS, (name) =>
    measureRate(p[name], KEYS, MS, inflight),
  );
  return names.map((path, i) => ({ store, path, rounds: rounds[i]!, median: median(rounds[i]!) }));
}

const rows: OutcomeRow[] = [];
rows.push(...(await measure('memory', paths(), 1)));
await withRedis(async (server) => {
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    rows.push(...(await measure('redis', paths(new RedisStore({ client })), 64)));
  } finally {
    client.disconnect();
  }
});

const memoryLease = rows.find((r) => r.store === 'memory' && r.path === 'lease')!;
const memoryAllow = rows.find((r) => r.store === 'memory' && r.path === 'allow')!;
const report: OutcomeReport = { rows, rounds: ROUNDS, ms: MS };
const leaseRatio = (memoryLease.median / memoryAllow.median).toFixed(2);
const verdict = `a lease (take + release) on the memory store runs at ${leaseRatio} of the allow path`;
finishPart('outcome', report, verdict, args.json);
