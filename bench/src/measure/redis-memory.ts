// bench:redis's memory sections: `MEMORY USAGE` of what one decision writes, and (`--scale`) the
// used_memory delta per subject, which counts the server's dictionaries and expiry entries too.
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import type { Consume, RedisLimiter } from '../cases/redis-peers.js';
import type { RedisReport } from '../report/types.js';
import { infoField, median } from './common.js';

/** Calls outstanding while filling (sluice coalesces them into batches). */
export const FILL_INFLIGHT = 1024;

/** Consumes every key exactly once with `FILL_INFLIGHT` calls outstanding; returns seconds. */
export async function fill(consume: Consume, keys: string[]): Promise<number> {
  let i = 0;
  const start = performance.now();
  const worker = async () => {
    while (i < keys.length) await consume(keys[i++]!);
  };
  const workers: Promise<void>[] = [];
  for (let w = 0; w < FILL_INFLIGHT; w++) workers.push(worker());
  await Promise.all(workers);
  return (performance.now() - start) / 1000;
}

/** INFO memory's `used_memory`, bytes. */
export const usedMemory = (client: Redis) => infoField(client, 'memory', 'used_memory');

/** `MEMORY USAGE` of `key`; throws on null or 0 (no such key: the row would lie). */
async function memoryUsage(mem: Redis, key: string): Promise<number> {
  const bytes = await mem.memory('USAGE', key);
  if (bytes === null || bytes === 0)
    throw new Error(`MEMORY USAGE ${key} replied ${bytes}: the key was not written`);
  return Number(bytes);
}

/** MEMORY USAGE of what one decision on `user:1` writes, per limiter (sluice's rows judged). */
export async function keyUsageSection(
  port: number,
  peers: RedisLimiter[],
  sluices: RedisLimiter[],
): Promise<RedisReport['memory']> {
  const mem = new Redis({ port, host: '127.0.0.1' });
  const rows: RedisReport['memory'] = [];
  const limiters = [...sluices, ...peers].map((limiter) => [limiter, sluices.includes(limiter)]);
  try {
    for (const [limiter, sluice] of limiters as [RedisLimiter, boolean][]) {
      await mem.flushdb(); // our own server only
      await limiter.consumer(mem)('user:1');
      const keys = (await mem.keys('*')).sort();
      if (keys.length === 0) throw new Error(`${limiter.label} wrote no key`);
      let bytes = 0;
      for (const key of keys) bytes += await memoryUsage(mem, key);
      rows.push({ label: limiter.label, sluice, key: keys.join(', '), bytes });
    }
    await mem.flushdb();
  } finally {
    mem.disconnect();
  }
  return rows;
}

type PeerMemoryReport = NonNullable<RedisReport['peerMemory']>;

/**
 * used_memory once two readings 100 ms apart agree: a dictionary grown during the fill keeps both
 * tables until cron finishes rehashing it (up to 5 B per key at 100k keys).
 */
export async function settledUsedMemory(mem: Redis): Promise<number> {
  let last = await usedMemory(mem);
  for (let tries = 0; tries < 50; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await usedMemory(mem);
    if (now === last) return now;
    last = now;
  }
  throw new Error('used_memory still moving after 5 s');
}

/** Waits until the server counts at most `n` connected clients (a closed one is freed). */
async function clientsDownTo(mem: Redis, n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await infoField(mem, 'clients', 'connected_clients')) > n) {
    if (Date.now() > deadline) throw new Error('a closed client is still connected after 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One fill: used_memory delta over the subjects, DBSIZE after, seconds. */
async function fillAlone(
  port: number,
  mem: Redis,
  clients: number,
  limiter: RedisLimiter,
  keys: string[],
): Promise<{ bytesPerKey: number; dbsize: number; seconds: number }> {
  await mem.flushdb(); // our own server only
  const used0 = await usedMemory(mem);
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: true });
  let seconds: number;
  try {
    seconds = await fill(limiter.consumer(client), keys);
  } finally {
    await client.quit();
  }
  // Its connection and buffers gone, what is left is what it stored.
  await clientsDownTo(mem, clients);
  const used1 = await settledUsedMemory(mem);
  return { bytesPerKey: (used1 - used0) / keys.length, dbsize: await mem.dbsize(), seconds };
}

/** used_memory per subject at `n` subjects, each limiter filled alone, interleaved rounds, medians. */
export async function peerMemorySection(
  port: number,
  n: number,
  limiters: RedisLimiter[],
  rounds: number,
): Promise<PeerMemoryReport> {
  const keys = Array.from({ length: n }, (_, i) => `user:${i}`);
  const mem = new Redis({ port, host: '127.0.0.1' });
  const fills = limiters.map(() => ({ bytes: [] as number[], seconds: [] as number[] }));
  const dbsizes = limiters.map(() => 0);
  const examples = limiters.map(() => '');
  try {
    await mem.ping();
    const clients = await infoField(mem, 'clients', 'connected_clients');
    // Unmeasured: a limiter's first fill on a server leaves tens of KB that are not keys.
    const warm = keys.slice(0, Math.ceil(n / 10)).map((k) => `warm:${k}`);
    for (const limiter of limiters) await fillAlone(port, mem, clients, limiter, warm);
    for (let round = 0; round < rounds; round++) {
      for (const [i, limiter] of limiters.entries()) {
        const f = await fillAlone(port, mem, clients, limiter, keys);
        // Fewer keys than subjects: some expired or were never written, the figure would lie.
        if (f.dbsize < n || (i === 0 && f.dbsize !== n))
          throw new Error(`${limiter.label}: ${f.dbsize} keys after consuming ${n} subjects`);
        fills[i]!.bytes.push(f.bytesPerKey);
        fills[i]!.seconds.push(f.seconds);
        dbsizes[i] = f.dbsize;
        examples[i] = (await mem.randomkey()) ?? '';
      }
      process.stderr.write(`used_memory round ${round + 1}/${rounds} done\n`);
    }
    await mem.flushdb();
  } finally {
    mem.disconnect();
  }
  const rows: PeerMemoryReport['rows'] = limiters.map((limiter, i) => ({
    label: limiter.label,
    config: limiter.config,
    sluice: i === 0,
    bytesPerKey: median(fills[i]!.bytes),
    rounds: fills[i]!.bytes,
    dbsize: dbsizes[i]!,
    keysPerSubject: dbsizes[i]! / n,
    exampleKey: examples[i]!,
    fillSeconds: median(fills[i]!.seconds),
  }));
  return { keys: n, rounds, fillInFlight: FILL_INFLIGHT, rows };
}
