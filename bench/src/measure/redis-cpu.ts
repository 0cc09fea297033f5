// `pnpm bench:redis -- --cpu`: where a Redis decision's CPU goes (Node's and the server's per decision,
// the server's per part of the GCRA script; `--prefetch`: hot keys with prefetch). bench/profile.md reads it.
import { gcra, RateLimiter } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { RedisStore } from '@sluice/redis';
import type { RedisProcess } from '@sluice/test-kit';
import { Redis } from 'ioredis';
// The batch script itself, for its CPU per key: internal to the package, read from its source.
import { GCRA_BATCH_LUA } from '../../../packages/redis/src/twins/gcra.lua.js';
import { PREFETCH } from '../cases/http-apps.js';
import {
  GCRA_CONFIG,
  gcraAlgo,
  measureRate,
  median,
  plainTable,
  redisCpuUs,
  scriptCalls,
} from './common.js';

let o = { ms: 2000, rounds: 3, prefetch: false };

interface Subject {
  algorithm: Algorithm;
  auto: boolean;
  keyCount?: number;
  prefetch?: typeof PREFETCH | undefined;
}

/** Node and server CPU µs per decision and decisions per script call (medians) over `keyCount` keys. */
async function perDecision(port: number, info: Redis, subject: Subject) {
  const { algorithm, auto, keyCount = 10_000, prefetch } = subject;
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: auto });
  const store = new RedisStore({ client, prefetch });
  const limiter = new RateLimiter({ algorithm, store, onStoreError: 'deny' });
  const keys = Array.from({ length: keyCount }, (_, i) => `user:${i}`);
  const consume = async (key: string) => {
    if (!(await limiter.consume(key)).allowed) throw new Error('denied: the bench limit is wrong');
  };
  const node: number[] = [];
  const server: number[] = [];
  const perCall: number[] = [];
  const rate: number[] = [];
  try {
    await measureRate(consume, keys, 500, 256); // warm-up
    for (let r = 0; r < o.rounds; r++) {
      const [s0, c0, n0] = [await redisCpuUs(info), await scriptCalls(info), process.cpuUsage()];
      const t0 = performance.now();
      const perS = await measureRate(consume, keys, o.ms, 256);
      const decisions = (perS * (performance.now() - t0)) / 1000;
      const n = process.cpuUsage(n0);
      const [s1, c1] = [await redisCpuUs(info), await scriptCalls(info)];
      node.push((n.user + n.system) / decisions);
      server.push((s1 - s0) / decisions);
      perCall.push(decisions / (c1 - c0));
      rate.push(perS);
    }
  } finally {
    await store.close();
    client.disconnect();
  }
  return {
    node: median(node),
    server: median(server),
    perCall: median(perCall),
    rate: median(rate),
  };
}

/** The server's CPU µs per key of `source` run on 128 keys at a time. */
async function perKey(client: Redis, source: string, argv: (string | number)[]) {
  const keys = Array.from({ length: 128 }, (_, i) => `sl:user:${i}`);
  const sha = String(await client.script('LOAD', source));
  const run = (n: number) =>
    Promise.all(Array.from({ length: n }, () => client.evalsha(sha, 128, ...keys, ...argv)));
  await run(200);
  const before = await redisCpuUs(client);
  await run(2000);
  return ((await redisCpuUs(client)) - before) / (2000 * 128);
}

const LOOPS: [string, string][] = [
  [
    'loop and a 1-number reply per key',
    'local out = {} for i = 1, #KEYS do out[i] = 1 end return out',
  ],
  [
    'pcall of a function returning 4 numbers',
    'local function f(k) return 1, 2, 3, 4 end local out = {} for i = 1, #KEYS do local ok, a = pcall(f, KEYS[i]) out[i] = a end return out',
  ],
  [
    'PEXPIRETIME',
    "local out = {} for i = 1, #KEYS do out[i] = redis.call('PEXPIRETIME', KEYS[i]) end return out",
  ],
  [
    'SET key 0 PXAT t',
    "local t = redis.call('TIME') local at = tonumber(t[1]) * 1000 + 100000 local out = {} for i = 1, #KEYS do redis.call('SET', KEYS[i], '0', 'PXAT', string.format('%d', at + i)) out[i] = 1 end return out",
  ],
  [
    'PEXPIREAT key t',
    "local t = redis.call('TIME') local at = tonumber(t[1]) * 1000 + 100000 local out = {} for i = 1, #KEYS do out[i] = redis.call('PEXPIREAT', KEYS[i], string.format('%d', at + i)) end return out",
  ],
];

/** Hot keys with and without `prefetch`: Redis CPU per decision and decisions/s per Redis core. */
async function prefetchTable(port: number, info: Redis): Promise<void> {
  const t = plainTable([
    'keys',
    'prefetch',
    'decisions/s',
    'Node µs/decision',
    'Redis µs/decision',
    'decisions/s per Redis core',
    'script calls per decision',
  ]);
  for (const keyCount of [1, 16]) {
    for (const prefetch of [undefined, PREFETCH]) {
      const d = await perDecision(port, info, {
        algorithm: gcraAlgo(),
        auto: false,
        keyCount,
        prefetch,
      });
      t.push([
        String(keyCount),
        prefetch === undefined ? 'off' : `{ units: ${prefetch.units}, ttl: '${prefetch.ttl}' }`,
        `${(d.rate / 1e3).toFixed(0)} k/s`,
        d.node.toFixed(2),
        d.server.toFixed(3),
        `${(1e6 / d.server / 1e6).toFixed(2)} M/s`,
        (1 / d.perCall).toFixed(4),
      ]);
    }
  }
  console.log(
    `hot keys, 256 in flight, ${GCRA_CONFIG}, median of ${o.rounds} rounds of ~${o.ms} ms:\n${t.toString()}`,
  );
}

/** The CPU tables (`--prefetch`: only the prefetch one), on `server`. */
export async function cpuSection(
  server: RedisProcess,
  options: { ms: number; rounds: number; prefetch: boolean },
): Promise<void> {
  o = options;
  const info = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    if (o.prefetch) {
      await prefetchTable(server.port, info);
      return;
    }
    const subMs = gcra({ rate: 1e6, period: '1s', burst: 1e9 });
    const t = plainTable([
      'interval',
      'auto-pipelining',
      'decisions/s',
      'Node µs/decision',
      'Redis µs/decision',
      'decisions per call',
    ]);
    for (const [label, algorithm] of [
      [`whole ms: ${GCRA_CONFIG}`, gcraAlgo()],
      ['sub-ms: gcra({ rate: 1e6, period: "1s", burst: 1e9 })', subMs],
    ] as const) {
      for (const auto of [false, true]) {
        const d = await perDecision(server.port, info, { algorithm, auto });
        t.push([
          label,
          String(auto),
          `${(d.rate / 1e3).toFixed(0)} k/s`,
          d.node.toFixed(2),
          d.server.toFixed(2),
          d.perCall.toFixed(0),
        ]);
      }
    }
    console.log(
      `per decision, 256 in flight over 10 000 keys, median of ${o.rounds} rounds of ~${o.ms} ms:\n${t.toString()}`,
    );
    const k = plainTable(['script on 128 keys a call', 'Redis µs per key']);
    k.push([
      'GCRA batch script, whole-ms interval',
      (await perKey(info, GCRA_BATCH_LUA, [1, 1, 1e9, '', 1, ''])).toFixed(2),
    ]);
    k.push([
      'GCRA batch script, 1000 ticks per ms',
      (await perKey(info, GCRA_BATCH_LUA, [1, 1000, 1e9, '', 1, ''])).toFixed(2),
    ]);
    for (const [label, source] of LOOPS)
      k.push([label, (await perKey(info, source, [])).toFixed(2)]);
    console.log(`\nthe server's CPU per key of one script call on 128 keys:\n${k.toString()}`);
    await info.flushdb(); // our own server only
  } finally {
    info.disconnect();
  }
}
