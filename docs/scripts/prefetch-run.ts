/**
 * `pnpm bench:prefetch-timeline`: the prefetch plot's data (docs/data/prefetch-timeline.json):
 * 4 processes (this file with `--worker`) share one key on a redis-server of their own, each
 * offering OFFERED requests/s for SECONDS s, without then with prefetch; every admission's time.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gcra, RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';
import { redisServerVersion, scriptCalls, withRedis } from '../../bench/src/measure/common.js';

const PROCESSES = 4;
/** Requests/s each process offers. */
const OFFERED = 600;
const SECONDS = 4;
/** The key's quota: 2000 per s, 1000 back to back from idle (offered: 2400 per s). */
const RATE = 2000;
const BURST = 1000;
const PREFETCH = { units: 50, ttl: '100ms' };
const algorithm = () => gcra({ rate: RATE, period: '1s', burst: BURST });

interface Run {
  prefetch: boolean;
  /** Per process, the ms (since the start) of each admitted request. */
  admitted: number[][];
  offered: number;
  scriptCalls: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The worker: on { port, key, prefetch } connects and answers 'ready'; on { startAt } offers
 * the load from then and answers its admissions.
 */
async function worker(): Promise<void> {
  let limiter: RateLimiter | undefined;
  let store: RedisStore | undefined;
  let client: Redis | undefined;
  let key = '';
  process.on(
    'message',
    async (m: { port?: number; key?: string; prefetch?: boolean; startAt?: number }) => {
      if (m.startAt === undefined) {
        client = new Redis({ host: '127.0.0.1', port: m.port! });
        store = new RedisStore({
          client,
          timeoutMs: 5000,
          prefetch: m.prefetch ? PREFETCH : undefined,
        });
        limiter = new RateLimiter({ algorithm: algorithm(), store, onStoreError: 'deny' });
        key = m.key!;
        await limiter.peek('warm');
        process.send!('ready');
        return;
      }
      const start = m.startAt;
      await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));
      const admitted: number[] = [];
      const pending: Promise<void>[] = [];
      let sent = 0;
      await new Promise<void>((done) => {
        const timer = setInterval(() => {
          const elapsed = Date.now() - start;
          if (elapsed >= SECONDS * 1000) {
            clearInterval(timer);
            done();
            return;
          }
          // Catch up to OFFERED per s since the start.
          const due = Math.floor((elapsed * OFFERED) / 1000);
          for (; sent < due; sent++) {
            pending.push(
              limiter!.consume(key).then((d) => {
                if (d.allowed) admitted.push(Date.now() - start);
              }),
            );
          }
        }, 1);
      });
      await Promise.all(pending);
      await store!.close();
      client!.disconnect();
      process.send!({ admitted, offered: sent });
    },
  );
}

async function run(port: number, prefetch: boolean, info: Redis): Promise<Run> {
  const children: ChildProcess[] = Array.from({ length: PROCESSES }, () =>
    fork(fileURLToPath(import.meta.url), ['--worker'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const calls = () => scriptCalls(info);
  const calls0 = await calls();
  const key = `timeline:${prefetch ? 'prefetch' : 'plain'}`;
  const answer = <T>(child: ChildProcess, message: object) =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (r) => resolve(r as T));
      child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
      child.send(message);
    });
  await Promise.all(children.map((child) => answer(child, { port, key, prefetch })));
  const startAt = Date.now() + 200; // every worker connected: start together
  const reports = await Promise.all(
    children.map((child) => answer<{ admitted: number[]; offered: number }>(child, { startAt })),
  );
  for (const child of children) child.kill();
  return {
    prefetch,
    admitted: reports.map((r) => r.admitted.sort((a, b) => a - b)),
    offered: reports.reduce((s, r) => s + r.offered, 0),
    scriptCalls: (await calls()) - calls0,
  };
}

async function main(): Promise<void> {
  const runs = await withRedis(async (server) => {
    const info = new Redis({ host: '127.0.0.1', port: server.port });
    try {
      return [await run(server.port, false, info), await run(server.port, true, info)];
    } finally {
      info.disconnect();
    }
  });
  const out = {
    date: new Date().toISOString().slice(0, 10),
    config: {
      processes: PROCESSES,
      offeredPerProcess: OFFERED,
      seconds: SECONDS,
      rate: RATE,
      burst: BURST,
      prefetch: PREFETCH,
      redis: redisServerVersion(),
    },
    runs,
  };
  const file = path.resolve(here, '../data/prefetch-timeline.json');
  writeFileSync(file, `${JSON.stringify(out)}\n`);
  for (const r of runs) {
    const total = r.admitted.reduce((s, a) => s + a.length, 0);
    console.log(
      `${r.prefetch ? 'prefetch' : 'no prefetch'}: offered ${r.offered}, admitted ${total} (${r.admitted.map((a) => a.length).join(' + ')}), script calls ${r.scriptCalls}`,
    );
  }
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

if (process.argv.includes('--worker')) await worker();
else await main();
