// The cells that are not a Redis fault: a key spray of the memory stores (eviction must not
// hand an exhausted key a fresh bucket) and an app process SIGKILLed while it holds
// prefetched units.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore, RateLimiter } from '@sluice/core';
import { MemoryStore as ErlMemoryStore } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { LIMIT, makeAlgorithm } from './cells.js';
import type { Bounds, CellFigures } from './measure.js';
import { killChild, ownNode, ownRedis } from './procs.js';
import { within } from './redis-cell.js';
import { sluiceSubject } from './subjects.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface OtherCellSpec {
  kind: 'other';
  id: string;
  fault: { id: string; label: string };
  subject: { id: string; label: string; peer?: string };
  bounds: Bounds;
  boundText: string;
  quick: boolean;
  run(seed: number): Promise<CellFigures>;
}

type Decide = (key: string) => Promise<boolean>;
interface SpraySubject {
  id: string;
  label: string;
  peer?: string;
  make(): Decide;
}

const SPRAY_LIMIT = 5;
const sluiceMemory = (id: 'gcra' | 'fixed', maxKeys?: number): SpraySubject => ({
  id: `sluice-memory-${id}${maxKeys === undefined ? '' : `-max${maxKeys}`}`,
  label: `sluice ${id}, MemoryStore(${maxKeys === undefined ? '' : `{ maxKeys: ${maxKeys} }`})`,
  make() {
    const store = new MemoryStore(maxKeys === undefined ? {} : { maxKeys });
    const limiter = new RateLimiter({ algorithm: makeAlgorithm(id, SPRAY_LIMIT), store });
    return async (key) => (await limiter.consume(key)).allowed;
  },
});
const SPRAYED: SpraySubject[] = [
  sluiceMemory('gcra'),
  sluiceMemory('gcra', 20),
  sluiceMemory('fixed', 20),
  {
    id: 'rlf-memory',
    label: 'rate-limiter-flexible RateLimiterMemory',
    peer: 'rate-limiter-flexible@11.4.0',
    make() {
      const limiter = new RateLimiterMemory({ points: SPRAY_LIMIT, duration: 600 });
      return (key) =>
        limiter.consume(key).then(
          () => true,
          () => false,
        );
    },
  },
  {
    id: 'erl-memory',
    label: 'express-rate-limit MemoryStore',
    peer: 'express-rate-limit@8.7.4',
    make() {
      const store = new ErlMemoryStore();
      store.init({ windowMs: 600_000 } as Parameters<ErlMemoryStore['init']>[0]);
      return async (key) => (await store.increment(key)).totalHits <= SPRAY_LIMIT;
    },
  },
];

const zero = (): CellFigures => ({
  offered: 0,
  admitted: 0,
  denied: 0,
  errors: 0,
  limit: 0,
  over: 0,
  under: 0,
  lost: 0,
  p99AddedMs: 0,
  recoverMs: null,
  logLines: 0,
  crashes: 0,
});

function sprayCell(s: SpraySubject, ids: number, quick: boolean): OtherCellSpec {
  return {
    kind: 'other',
    id: `spray/${s.id}`,
    fault: {
      id: 'spray',
      label: `a key spray of ${ids.toLocaleString('en-US')} ids through the limiter of an exhausted key`,
    },
    subject: s,
    bounds: s.peer === undefined ? { over: 0, lost: 0 } : { over: null, lost: null },
    boundText:
      s.peer === undefined
        ? 'a denied key is evicted only after every key that is not: it stays denied'
        : 'none documented',
    quick,
    async run(seed) {
      const decide = s.make();
      const f = zero();
      const victim = `victim:${seed}`;
      const count = async (n: number) => {
        for (let i = 0; i < n; i++) {
          f.offered++;
          if (await decide(victim)) f.admitted++;
        }
      };
      await count(2 * SPRAY_LIMIT);
      const deadline = performance.now() + 120_000; // bounded in time as well as in count
      const t = performance.now();
      const heap = process.memoryUsage().heapUsed;
      let i = 0;
      for (; i < ids && performance.now() < deadline; i++) await decide(`spray:${seed}:${i}`);
      f.p99AddedMs = 0;
      f.recoverMs = null;
      await count(4 * SPRAY_LIMIT);
      f.limit = SPRAY_LIMIT;
      f.denied = f.offered - f.admitted;
      f.over = Math.max(0, f.admitted - SPRAY_LIMIT);
      const grown = Math.max(0, process.memoryUsage().heapUsed - heap) / 2 ** 20;
      f.note = `${i.toLocaleString('en-US')} ids sprayed in ${((performance.now() - t) / 1000).toFixed(1)} s, the heap ${Math.round(grown)} MB larger after it`;
      return f;
    },
  };
}

const UNITS = 20;
const once = <T>(child: ChildProcess): Promise<T> =>
  new Promise((resolve) => child.once('message', (m) => resolve(m as T)));

/** An app holding prefetched units is SIGKILLed; a second app then takes what is left. */
const prefetchKill: OtherCellSpec = {
  kind: 'other',
  id: 'app-kill/sluice-gcra-deny-prefetch20',
  fault: { id: 'app-kill', label: 'an app process SIGKILLed while it holds prefetched units' },
  subject: {
    id: 'sluice-gcra-deny-prefetch20',
    label: "sluice gcra, deny, prefetch: { units: 20, ttl: '30s' }",
  },
  bounds: { over: 0, lost: UNITS },
  boundText: 'a crashed process loses at most `units` per key until the bucket refills; never over',
  quick: true,
  async run(seed) {
    const redis = await ownRedis();
    const key = `app-kill:${seed}`;
    const f = zero();
    const child = ownNode([
      path.join(HERE, 'app-child.ts'),
      String(redis.port),
      key,
      String(LIMIT),
      String(UNITS),
    ]);
    let crashed = false;
    child.once('exit', (_code, signal) => {
      crashed = signal !== 'SIGKILL';
    });
    const other = sluiceSubject({ algorithm: 'gcra', policy: 'deny', limit: LIMIT, makeAlgorithm });
    const app = await other.app(redis.port, () => Date.now());
    try {
      await within(once(child), 30_000, { timedOut: true });
      const n = 30;
      const answer = once<{ admitted: number }>(child);
      child.send({ n });
      const got = await within(answer, 30_000, { admitted: 0 });
      f.offered += n;
      f.admitted += got.admitted;
      await killChild(child);
      for (let i = 0; i < 2 * LIMIT; i++) {
        f.offered++;
        if ((await within(app.decide(key), 3000, 'error' as const)) === 'admitted') f.admitted++;
      }
      if (crashed) f.crashes++;
      const charged = await within(other.charged(redis.port, key), 3000, 0);
      f.limit = LIMIT;
      f.denied = f.offered - f.admitted;
      f.over = Math.max(0, f.admitted - LIMIT - 1);
      f.under = Math.max(0, LIMIT - f.admitted);
      f.lost = Math.max(0, charged - f.admitted);
      return f;
    } finally {
      await killChild(child);
      await app.close();
      await redis.stop();
    }
  },
};

export function otherCells(broken?: string): OtherCellSpec[] {
  void broken;
  const full = 1_000_000;
  return [
    ...SPRAYED.map((s) => sprayCell(s, full, s.peer === undefined && s.id.includes('max20'))),
    prefetchKill,
  ];
}
