// Across processes (the full tier): the replica case (LiteLLM #40291, a pre-call check against
// each replica's memory let budget × replicas through) with 2 and 4 processes, and 4 processes
// × 40 concurrent charges settled to random usage, Σ charged = Σ reported exactly; on Redis
// and on PostgreSQL.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { tokenLimiter } from '@sluice/ai';
import type { Store } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import { RedisStore } from '@sluice/redis';
import {
  createPostgresDatabase,
  type PostgresDatabase,
  type RedisProcess,
  startRedis,
  tsWorkerPath,
} from '@sluice/test-kit';
import { Redis } from 'ioredis';
import pg from 'pg';

const T0 = 1_700_000_000_000;
jest.setTimeout(90_000);

interface Worker {
  child: ChildProcess;
  ask<T>(message: object, answer: string): Promise<T>;
}

function startWorker(): Worker {
  const child = fork(tsWorkerPath(), [join(__dirname, 'charge-worker.ts')], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: (message, answer) =>
      new Promise((resolve, reject) => {
        const on = (m: { type: string; error?: string }) => {
          if (m.type === 'error') reject(new Error(m.error));
          else if (m.type === answer) resolve(m as never);
          else return;
          child.off('message', on);
        };
        child.on('message', on);
        child.send(message);
      }),
  };
}

let redis: RedisProcess;
let db: PostgresDatabase;
let pool: pg.Pool;
let client: Redis;
const workers: Worker[] = [];

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis({ host: '127.0.0.1', port: redis.port });
  db = await createPostgresDatabase();
  pool = new pg.Pool({ connectionString: db.url });
  await new PostgresStore({ client: pool, sweepIntervalMs: 0 }).migrate();
  for (let i = 0; i < 4; i++) workers.push(startWorker());
}, 60_000);

afterAll(async () => {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          w.child.once('exit', resolve);
          w.child.send({ type: 'exit' });
        }),
    ),
  );
  client?.disconnect();
  await pool?.end();
  await db?.drop();
  await redis?.stop();
});

const stores: Record<string, { target: () => string; store: () => Store }> = {
  Redis: {
    target: () => String(redis.port),
    store: () => new RedisStore({ client, clock: 'client' }),
  },
  PostgreSQL: {
    target: () => db.url,
    store: () => new PostgresStore({ client: pool, clock: 'client', sweepIntervalMs: 0 }),
  },
};

let n = 0;
async function setup(
  name: string,
  count: number,
  limit: string,
): Promise<{ prefix: string; ws: Worker[] }> {
  const prefix = `ai-proc-${n++}`;
  const ws = workers.slice(0, count);
  const store = name === 'Redis' ? 'redis' : 'postgres';
  await Promise.all(
    ws.map((w) =>
      w.ask({ type: 'setup', store, target: stores[name]!.target(), prefix, limit }, 'ready'),
    ),
  );
  return { prefix, ws };
}

type Done = { allowed: number; charged: number; reported: number };
const go = (ws: Worker[], calls: number, body: object, settle: boolean) => {
  const startAt = Date.now() + 300;
  return Promise.all(
    ws.map((w, i) =>
      w.ask<Done>({ type: 'go', startAt, calls, body, seed: 1000 + i, settle }, 'done'),
    ),
  );
};

describe.each(['Redis', 'PostgreSQL'])('@sluice/ai across processes on %s', (name) => {
  it.each([2, 4])(
    '#40291: %i replicas admit the budget once, not once per replica',
    async (count) => {
      const { ws } = await setup(name, count, '2000/min');
      const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 92 };
      const each = (await tokenLimiter({ limit: '2000/min' }).charge(body, { key: 'x' })).upfront;
      const fits = Math.floor(2000 / each);
      // Each replica fires `fits` calls: one checking its own memory would admit them all.
      const done = await go(ws, fits, body, false);
      expect(done.reduce((s, d) => s + d.allowed, 0)).toBe(fits); // the mistake: fits × count
    },
  );

  it('4 processes × 40 concurrent charges settled to random usage: Σ charged = Σ reported, exactly', async () => {
    const { prefix, ws } = await setup(name, 4, '100000000/day');
    const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 600 };
    const done = await go(ws, 40, body, true);
    expect(done.map((d) => d.allowed)).toEqual([40, 40, 40, 40]);
    const reported = done.reduce((s, d) => s + d.reported, 0);
    expect(reported).not.toBe(done.reduce((s, d) => s + d.charged, 0)); // settling mattered
    const peek = tokenLimiter({
      limit: '100000000/day',
      store: stores[name]!.store(),
      prefix,
      clock: () => T0,
      estimate: { perMessage: 0 },
    });
    const state = await peek.charge({ max_tokens: 0 }, { key: 'shared' });
    expect(state.upfront).toBe(0);
    expect(100_000_000 - state.decisions[0]!.remaining).toBe(reported);
  });
});
