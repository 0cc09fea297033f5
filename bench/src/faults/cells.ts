// The matrix: which subject meets which fault, with sluice's documented bound for each
// (docs/guide/production.md "When Redis fails", docs/guide/features/prefetch.md), and which
// cells the quick subset (`--quick`, in CI) runs.
import { fixedWindow, gcra, slidingLog, slidingWindow } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import type { Bounds } from './measure.js';
import type { ProxyMode } from './proxy.js';
import type { Fault, FaultContext, Load, StoreServer } from './redis-cell.js';
import {
  type AlgorithmId,
  erlSubject,
  honoSubject,
  naiveSubject,
  type Policy,
  rlfSubject,
  type SluiceOptions,
  type SubjectSpec,
  sluiceSubject,
  upstashSubject,
} from './subjects.js';

export const LIMIT = 200;
/** The restart cells exhaust the key before the kill, so what the restart forgets shows. */
export const SMALL_LIMIT = 50;
export const GCRA_PERIOD_MS = 3_600_000;

export function makeAlgorithm(id: AlgorithmId, limit: number): Algorithm {
  switch (id) {
    case 'gcra':
      return gcra({ rate: limit, period: GCRA_PERIOD_MS, burst: limit });
    case 'fixed':
      return fixedWindow({ limit, window: '10m' });
    case 'sliding':
      return slidingWindow({ limit, window: '10m' });
    case 'log':
      return slidingLog({ limit, window: '10m' });
  }
}

/** Sets `mode` on every app's proxy. */
const both = (c: FaultContext, mode: ProxyMode): void => {
  for (const p of c.proxies) p.set(mode);
};

export const FAULTS: Record<string, Fault> = {
  stop: {
    id: 'stop',
    label: 'SIGSTOP of redis-server for 1 s, then SIGCONT',
    durationMs: 1000,
    apply: (c) => c.server.pause(),
    heal: (c) => c.server.resume(),
  },
  restart: {
    id: 'restart',
    label: 'SIGKILL of redis-server (no persistence), restarted 1 s later on its port',
    durationMs: 1000,
    losesState: true,
    apply: (c) => c.server.kill(),
    heal: (c) => c.server.restart(),
  },
  latency: {
    id: 'latency',
    label: '200 ms added to every reply for 1 s (proxy)',
    durationMs: 1000,
    apply: (c) => both(c, { kind: 'delay', ms: 200 }),
    heal: (c) => both(c, { kind: 'pass' }),
  },
  hold: {
    id: 'hold',
    label: 'replies held 1 s in transit for 1 s (proxy; the commands reach Redis at once)',
    durationMs: 1000,
    apply: (c) => both(c, { kind: 'delay', ms: 1000 }),
    heal: (c) => both(c, { kind: 'pass' }),
  },
  partition: {
    id: 'partition',
    label: 'one of the two apps partitioned from Redis for 1.5 s (its proxy forwards nothing)',
    durationMs: 1500,
    apply: (c) => c.proxies[1].set({ kind: 'partition' }),
    heal: (c) => c.proxies[1].set({ kind: 'pass' }),
  },
  'clock+30': {
    id: 'clock+30',
    label: "one app's clock stepped +30 s (sluice's injected clock)",
    durationMs: 1000,
    apply: (c) => {
      c.skew.ms = 30_000;
    },
  },
  'clock-30': {
    id: 'clock-30',
    label: "one app's clock stepped -30 s (sluice's injected clock)",
    durationMs: 1000,
    apply: (c) => {
      c.skew.ms = -30_000;
    },
  },
};

export interface RedisCellSpec {
  kind: 'redis';
  id: string;
  fault: Fault;
  subject: SubjectSpec;
  load: Load;
  bounds: Bounds;
  /** What the bound is, in a user's words. */
  boundText: string;
  quick: boolean;
  /** The store's server (default: a redis-server of the cell's own). */
  start?: () => Promise<StoreServer>;
}

export const load = (limit: number, algorithm: AlgorithmId | 'peer'): Load => ({
  limit,
  before: limit === SMALL_LIMIT ? 150 : 100,
  gapMs: 5,
  after: 500,
  refillPerMs: algorithm === 'gcra' ? limit / GCRA_PERIOD_MS : 0,
});

const sluice = (
  algorithm: AlgorithmId,
  policy: Policy,
  extra: Partial<SluiceOptions> = {},
  limit = LIMIT,
): SubjectSpec => sluiceSubject({ algorithm, policy, limit, makeAlgorithm, ...extra });

const VERSIONS = { rlf: '11.4.0', erl: '8.7.4 4.3.1', hono: '0.5.4', upstash: '2.2.0 1.39.0' };
const peers = (limit: number): SubjectSpec[] => [
  rlfSubject(limit, VERSIONS.rlf, false),
  rlfSubject(limit, VERSIONS.rlf, true),
  erlSubject(limit, VERSIONS.erl, false),
  erlSubject(limit, VERSIONS.erl, true),
  honoSubject(limit, VERSIONS.hono),
  upstashSubject(limit, VERSIONS.upstash),
];

/** The bound of a sluice subject under `fault`, and its meaning. */
export function sluiceBound(fault: string, s: SluiceOptions): [Bounds, string] {
  const insurance = s.policy === 'insurance';
  if (s.policy === 'allow' && ['stop', 'restart', 'partition', 'hold'].includes(fault))
    return [
      { over: null, lost: 0 },
      "fail open: every request of the outage admitted (no bound); nothing charged that wasn't admitted",
    ];
  if (fault === 'partition' && insurance)
    return [
      { over: s.limit, lost: 0 },
      'the partitioned process limits on its own memory: at most one more limit per process cut off',
    ];
  if ((fault === 'stop' || fault === 'hold') && insurance)
    return [
      { over: 2 * s.limit, lost: 0 },
      'each of the 2 processes limits on its own memory during the outage: at most 2 more limits',
    ];
  if (fault === 'restart' && s.overLimitCache === false)
    return [
      { over: s.limit, lost: 0 },
      'without the over-limit cache a restart without persistence forgets the count: up to one more limit',
    ];
  if (fault === 'restart')
    return [
      { over: 0, lost: 0 },
      'a key denied before the restart stays denied (over-limit cache) until its retry time',
    ];
  if (fault === 'clock+30' && s.storeClock === 'client')
    return [
      {
        over: s.algorithm === 'gcra' ? Math.ceil((30_000 * s.limit) / GCRA_PERIOD_MS) : 0,
        lost: 0,
      },
      "clock: 'client' trusts each server's clock: a clock 30 s fast gains 30 s of refill (GCRA); windows of 10 min are not crossed",
    ];
  if (s.prefetch !== undefined)
    return [
      { over: 0, lost: 2 * s.prefetch.units },
      'prefetched units are charged when fetched: never over; units held by a process while Redis fails may stay charged (at most units per process)',
    ];
  return [
    { over: 0, lost: 0 },
    'exact: a timed-out or late call charges nothing (or is given back), Redis decides the rest',
  ];
}

function cell(
  faultId: string,
  subject: SubjectSpec,
  o: SluiceOptions | null,
  quick: boolean,
): RedisCellSpec {
  const fault = FAULTS[faultId]!;
  const limit = o?.limit ?? (faultId === 'restart' ? SMALL_LIMIT : LIMIT);
  const [bounds, boundText] =
    o === null ? [{ over: null, lost: null }, 'none documented'] : sluiceBound(faultId, o);
  return {
    kind: 'redis',
    id: `${faultId}/${subject.id}`,
    fault,
    subject,
    load: load(limit, o?.algorithm ?? 'peer'),
    bounds,
    boundText,
    quick,
  };
}

/** Every Redis cell, in the page's order. */
export function redisCells(broken?: string): RedisCellSpec[] {
  if (broken !== undefined && broken !== 'naive-timeout')
    throw new Error(`--break: unknown name ${broken} (known: naive-timeout)`);
  const cells: RedisCellSpec[] = [];
  const add = (
    fault: string,
    algorithm: AlgorithmId,
    policy: Policy,
    extra: Partial<SluiceOptions>,
    quick: boolean,
  ) => {
    const limit = fault === 'restart' ? SMALL_LIMIT : LIMIT;
    const o: SluiceOptions = { algorithm, policy, limit, makeAlgorithm, ...extra };
    const subject =
      broken !== undefined && policy === 'deny' && Object.keys(extra).length === 0
        ? naiveSubject(limit, algorithm)
        : sluice(algorithm, policy, extra, limit);
    cells.push(cell(fault, subject, o, quick));
  };
  const addPeers = (fault: string, quick: boolean) => {
    for (const p of peers(fault === 'restart' ? SMALL_LIMIT : LIMIT))
      cells.push(cell(fault, p, null, quick));
  };
  // SIGSTOP: every algorithm under 'deny', GCRA under each policy, prefetch.
  for (const a of ['gcra', 'fixed', 'sliding', 'log'] as const)
    add('stop', a, 'deny', {}, a === 'gcra' || a === 'log');
  add('stop', 'gcra', 'insurance', {}, true);
  add('stop', 'gcra', 'allow', {}, false);
  add('stop', 'gcra', 'deny', { prefetch: { units: 20, ttl: '1s' } }, false);
  add('stop', 'gcra', 'deny', { client: 'glide' }, false);
  addPeers('stop', false);
  // SIGKILL and restart: the key exhausted before.
  for (const a of ['gcra', 'fixed', 'sliding', 'log'] as const)
    add('restart', a, 'deny', {}, a === 'fixed');
  add('restart', 'gcra', 'insurance', {}, true);
  add('restart', 'gcra', 'deny', { overLimitCache: false }, false);
  add('restart', 'gcra', 'deny', { client: 'glide' }, false);
  addPeers('restart', false);
  // Replies held: timed-out calls given back.
  for (const a of ['gcra', 'fixed', 'sliding', 'log'] as const)
    add('hold', a, 'deny', { timeoutMs: 250 }, a === 'sliding');
  add('hold', 'gcra', 'insurance', { timeoutMs: 250 }, false);
  addPeers('hold', false);
  // 200 ms of latency within the 500 ms timeout: exact, slower.
  add('latency', 'gcra', 'deny', {}, false);
  add('latency', 'fixed', 'deny', {}, false);
  addPeers('latency', false);
  // A partition of one app.
  add('partition', 'gcra', 'deny', {}, true);
  add('partition', 'gcra', 'insurance', {}, false);
  add('partition', 'fixed', 'insurance', {}, false);
  addPeers('partition', false);
  // A clock stepped on one app.
  add('clock+30', 'gcra', 'deny', {}, true);
  add('clock+30', 'gcra', 'deny', { storeClock: 'client' }, false);
  add('clock-30', 'gcra', 'deny', { storeClock: 'client' }, false);
  add('clock+30', 'fixed', 'deny', { storeClock: 'client' }, false);
  return cells;
}
