// A worker process of processes.test.ts, run through the test-kit's ts-worker.cjs. Over IPC:
//   parent -> { type: 'setup', store: 'redis' | 'postgres', target, prefix, limit }  -> { type: 'ready' }
//   parent -> { type: 'go', startAt, calls, body, seed, settle }  -> { type: 'done', allowed, charged, reported }
// On 'go' it fires `calls` charges at once on one key (at the shared start instant); with
// `settle` it settles each admitted one to a seeded random usage and reports the sum.
import { type TokenLimiter, tokenLimiter } from '@sluice/ai';
import type { Store } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { RedisStore } from '@sluice/redis';
import { seededRandom } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import pg from 'pg';

const T0 = 1_700_000_000_000;
let limiter: TokenLimiter | undefined;
let close: () => Promise<void> = async () => undefined;

async function storeOf(kind: string, target: string): Promise<Store> {
  if (kind === 'redis') {
    const client = new Redis({ host: '127.0.0.1', port: Number(target) });
    const store = new RedisStore({ client, clock: 'client' });
    close = async () => {
      await store.close();
      client.disconnect();
    };
    return store;
  }
  const pool = new pg.Pool({ connectionString: target, max: 8 });
  const store = new PostgresStore({ client: pool, clock: 'client', sweepIntervalMs: 0 });
  close = () => pool.end();
  return store;
}

type Message =
  | { type: 'setup'; store: string; target: string; prefix: string; limit: string }
  | { type: 'go'; startAt: number; calls: number; body: object; seed: number; settle: boolean }
  | { type: 'exit' };

async function handle(m: Message): Promise<void> {
  if (m.type === 'setup') {
    await close(); // the previous test's connections
    const store = await storeOf(m.store, m.target);
    limiter = tokenLimiter({
      limit: m.limit,
      store,
      prefix: m.prefix,
      clock: () => T0,
      onStoreError: 'deny',
    });
    // Warm up: connections open, scripts loaded, on another key.
    await (await limiter.charge({ max_tokens: 0 }, { key: 'warm' })).cancel();
    process.send!({ type: 'ready' });
    return;
  }
  if (m.type === 'exit') {
    await close();
    process.exit(0);
  }
  while (Date.now() < m.startAt) await new Promise((r) => setTimeout(r, 1));
  const next = seededRandom(m.seed);
  const charges = await Promise.all(
    Array.from({ length: m.calls }, () => limiter!.charge(m.body, { key: 'shared' })),
  );
  let reported = 0;
  let charged = 0;
  const settles: Promise<unknown>[] = [];
  for (const c of charges) {
    if (!c.allowed) continue;
    charged += c.upfront;
    if (!m.settle) continue;
    const usage = {
      prompt_tokens: Math.floor(next() * 400),
      completion_tokens: Math.floor(next() * 1200),
    };
    reported += usage.prompt_tokens + usage.completion_tokens;
    settles.push(c.settle(usage));
  }
  await Promise.all(settles);
  process.send!({
    type: 'done',
    allowed: charges.filter((c) => c.allowed).length,
    charged,
    reported,
  });
}

process.on('message', (m: Message) => {
  handle(m).catch((error: unknown) => {
    process.send!({ type: 'error', error: String((error as Error)?.stack ?? error) });
  });
});
