// One Redis cell: a redis-server of its own, one proxy per app (two apps on one key), a
// seeded open-loop load in three phases (before, during, after the fault), then the count
// the store kept, read directly (not through a proxy). Every loop is bounded in count, every
// wait in time.
import { seededRandom } from '@sluice/test-kit';
import type { Request, Timeline } from './measure.js';
import { ownRedis } from './procs.js';
import { type FaultProxy, faultProxy } from './proxy.js';
import type { App, Outcome, SubjectSpec } from './subjects.js';

/** The store's server process(es) a fault acts on: a redis-server, or a PostgreSQL (pg-server.ts). */
export interface StoreServer {
  port: number;
  pid: number;
  /** SIGSTOP: the server stalls, connections stay open; `resume()` is SIGCONT. */
  pause(): void;
  resume(): void;
  /** SIGKILL; `restart()` starts it again on its port. */
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** What the fault acts on. */
export interface FaultContext {
  server: StoreServer;
  /** One proxy per app: app 0's and app 1's path to the store. */
  proxies: [FaultProxy, FaultProxy];
  /** ms added to app 1's clock (sluice's injected clock). */
  skew: { ms: number };
}

export interface Fault {
  id: string;
  label: string;
  /** How long it lasts (ms) before `heal`. */
  durationMs: number;
  apply(c: FaultContext): void | Promise<void>;
  /** Undefined: the fault stays (a clock step); no recovery time. */
  heal?(c: FaultContext): void | Promise<void>;
  /** Whether the store's state is lost at heal (counts since then are what it kept). */
  losesState?: boolean;
}

export interface Load {
  limit: number;
  /** Requests before the fault, and the gap between sends (ms). */
  before: number;
  gapMs: number;
  /** Requests after the fault heals. */
  after: number;
  /** GCRA's refill per ms (0 for windows). */
  refillPerMs: number;
}

const BUDGET_MS = 3000; // a request with no answer by then is an error (no answer in time)
const SETTLE_MS = 1500; // late replies and their give-backs land before the count is read
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or `fallback` when it rejects or has not settled within `ms`. */
export function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), ms);
  });
  return Promise.race([p.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

export interface RedisCellResult {
  requests: Request[];
  timeline: Timeline;
  logLines: number;
}

/** One cell to run: its subject and fault, the load, and its store's server (a redis-server by default). */
export interface CellRun {
  subject: SubjectSpec;
  fault: Fault;
  load: Load;
  start?: () => Promise<StoreServer>;
}

export async function runRedisCell(
  { subject, fault, load, start = ownRedis }: CellRun,
  seed: number,
  key: string,
): Promise<RedisCellResult> {
  const random = seededRandom(seed);
  const redis = await start();
  const proxies: [FaultProxy, FaultProxy] = [
    await faultProxy(redis.port),
    await faultProxy(redis.port),
  ];
  const skew = { ms: 0 };
  const ctx: FaultContext = { server: redis, proxies, skew };
  const apps: App[] = [];
  try {
    apps.push(await subject.app(proxies[0].port, () => Date.now()));
    apps.push(await subject.app(proxies[1].port, () => Date.now() + skew.ms));
    const requests: Request[] = [];
    const pending: Promise<void>[] = [];
    const t0 = performance.now();
    const send = (app: App) => {
      const at = performance.now() - t0;
      pending.push(
        within<Outcome>(app.decide(key), BUDGET_MS, 'error').then((outcome) => {
          requests.push({ at, outcome, ms: performance.now() - t0 - at });
        }),
      );
    };
    const phase = async (count: number) => {
      for (let i = 0; i < count; i++) {
        send(apps[random() < 0.5 ? 0 : 1]!);
        await sleep(load.gapMs * (0.5 + random()));
      }
    };
    await phase(load.before);
    const faultAt = performance.now() - t0;
    await fault.apply(ctx);
    await phase(Math.round(fault.durationMs / load.gapMs));
    let healAt: number | null = null;
    if (fault.heal !== undefined) {
      await fault.heal(ctx);
      healAt = performance.now() - t0;
    }
    await phase(load.after);
    await Promise.all(pending);
    const elapsed = performance.now() - t0;
    await sleep(SETTLE_MS);
    for (const p of proxies) p.set({ kind: 'pass' });
    const charged = await within(subject.charged(redis.port, key), BUDGET_MS, Number.NaN);
    return {
      requests,
      timeline: {
        faultAt,
        healAt,
        limit: load.limit,
        allowed: load.limit + Math.floor(elapsed * load.refillPerMs),
        charged: Number.isFinite(charged) ? charged : 0,
        chargedSince: fault.losesState === true && healAt !== null ? faultAt : 0,
      },
      logLines: apps.reduce((n, a) => n + a.logLines(), 0),
    };
  } finally {
    redis.resume();
    for (const app of apps) await app.close();
    for (const p of proxies) await p.close();
    await redis.stop();
  }
}
