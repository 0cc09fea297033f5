// The failover cells: sluice's RedisStore on ioredis through a Sentinel topology (a master,
// a replica, 3 sentinels: test-kit's startSentinel) and a Cluster (3 masters with a replica
// each: startCluster), each started for the cell. The key is exhausted first (as in the
// restart cells), then the master serving it is SIGKILLed while two apps keep sending, until
// its replica is promoted (bounded in time and count), then the load goes on. Replication is
// asynchronous: a unit charged in the instant before the master died can be lost with it,
// which a key already over its limit does not feel, so the bound is the restart cells'.
// The migration cells move a fresh key's slot to another master (IMPORTING, MIGRATING,
// MIGRATE, 1 s half-moved, then SETSLOT NODE on every master): the client follows ASK and
// MOVED, so the count is exact.
import { RateLimiter } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import {
  type RedisCluster,
  type RedisProcess,
  type RedisSentinel,
  seededRandom,
  startCluster,
  startSentinel,
} from '@sluice/test-kit';
import { Cluster, Redis } from 'ioredis';
import { GCRA_PERIOD_MS, makeAlgorithm, SMALL_LIMIT, sluiceBound } from './cells.js';
import { figures, type Request } from './measure.js';
import type { OtherCellSpec } from './other-cells.js';
import { own } from './procs.js';
import { within } from './redis-cell.js';
import type { AlgorithmId, Outcome, Policy, SluiceOptions } from './subjects.js';

const PREFIX = 'fm';
const LIMIT = SMALL_LIMIT;
const LIMIT_FRESH = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A topology of the cell's own: clients to it, and the failover of the key's master. */
interface Topology {
  client(): Redis | Cluster;
  /** SIGKILLs the master serving `key`; resolves once its replica is promoted. */
  failover(key: string): Promise<void>;
  /** Moves `key`'s slot to another master, held 1 s half-moved (Cluster only). */
  migrate?(key: string): Promise<void>;
  stop(): Promise<void>;
}

async function sentinelTopology(): Promise<Topology> {
  const s: RedisSentinel = await startSentinel();
  own(s.master.pid);
  own(s.replica.pid);
  return {
    client() {
      const c = new Redis({
        sentinels: s.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
        name: s.name,
      });
      c.on('error', () => undefined);
      return c;
    },
    async failover() {
      await s.sync();
      await s.failover();
    },
    stop: () => s.stop(),
  };
}

async function clusterTopology(): Promise<Topology> {
  const cluster: RedisCluster = await startCluster(
    ['--cluster-require-full-coverage', 'no', '--repl-diskless-sync-delay', '0'],
    1,
  );
  for (const n of cluster.nodes) own(n.pid);
  const masters = cluster.nodes.slice(0, 3);
  /** The master holding `key`'s Redis key, and that key's name. */
  const masterOf = async (key: string) => {
    for (const n of masters) {
      const name = (await n.cli('KEYS', `*${key}*`)).trim().split('\n')[0] ?? '';
      if (name !== '') return { master: n, name };
    }
    throw new Error('cluster cell: no master holds the key');
  };
  return {
    client() {
      const c = new Cluster(masters.map((n) => ({ host: '127.0.0.1', port: n.port })));
      c.on('error', () => undefined);
      return c;
    },
    async migrate(key) {
      const { master, name } = await masterOf(key);
      const to = masters.find((n) => n !== master)!;
      const slot = (await master.cli('CLUSTER', 'KEYSLOT', name)).trim();
      const id = async (n: RedisProcess) => (await n.cli('CLUSTER', 'MYID')).trim();
      const [fromId, toId] = [await id(master), await id(to)];
      await to.cli('CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId);
      await master.cli('CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId);
      const keys = (await master.cli('CLUSTER', 'GETKEYSINSLOT', slot, '100')).trim().split('\n');
      await master.cli('MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys);
      // Half-moved for 1 s: the old master answers ASK for the key, the client follows it.
      await sleep(1000);
      for (const n of masters) await n.cli('CLUSTER', 'SETSLOT', slot, 'NODE', toId);
    },
    async failover(key) {
      const { master } = await masterOf(key);
      const myself = (await master.cli('CLUSTER', 'MYID')).trim();
      const lines = (await master.cli('CLUSTER', 'NODES')).trim().split('\n');
      const replicaLine = lines.find((l) => l.split(' ')[3] === myself);
      const port = Number(replicaLine?.split(' ')[1]?.split('@')[0]?.split(':')[1]);
      const replica = cluster.nodes.find((n) => n.port === port);
      if (replica === undefined) throw new Error('cluster cell: the master has no replica');
      await master.cli('WAIT', '1', '1000');
      await master.kill();
      const deadline = Date.now() + 30_000;
      while (!(await replica.cli('ROLE')).startsWith('master')) {
        if (Date.now() > deadline) throw new Error('cluster cell: the replica was not promoted');
        await sleep(50);
      }
    },
    stop: () => cluster.stop(),
  };
}

type Kind = 'sentinel-failover' | 'cluster-failover' | 'cluster-migrate';
const LABELS: Record<Kind, string> = {
  'sentinel-failover':
    'Sentinel failover: the master SIGKILLed, its replica promoted by the 3 sentinels',
  'cluster-failover':
    'Cluster failover: the master of the key SIGKILLed, its replica promoted by the Cluster',
  'cluster-migrate':
    "Cluster slot migration: the key's slot moved to another master, held 1 s half-moved (ASK)",
};

function topologyCell(kind: Kind, algorithm: AlgorithmId, policy: Policy): OtherCellSpec {
  // A failover meets an exhausted key (the restart cells' load); a migration a fresh one.
  const migrate = kind === 'cluster-migrate';
  const limit = migrate ? LIMIT_FRESH : LIMIT;
  const before = migrate ? 100 : 150;
  const o: SluiceOptions = { algorithm, policy, limit, makeAlgorithm };
  const [bounds, boundText] = migrate
    ? [
        { over: 0, lost: 0 },
        "exact: ioredis follows the slot's move (ASK, then MOVED) by itself, and Redis decides every call",
      ]
    : sluiceBound('restart', o);
  const id = `sluice-${algorithm}-${policy}`;
  const client = kind === 'sentinel-failover' ? 'Sentinel client' : 'Cluster';
  return {
    kind: 'other',
    id: `${kind}/${id}`,
    fault: { id: kind, label: LABELS[kind] },
    subject: { id, label: `sluice ${algorithm}, ${policy}, ioredis ${client}` },
    bounds,
    boundText: (boundText as string).replace('the restart', 'the failover'),
    quick: false,
    async run(seed) {
      const random = seededRandom(seed);
      const key = `${kind}:${seed}`;
      const topology =
        kind === 'sentinel-failover' ? await sentinelTopology() : await clusterTopology();
      const clients: (Redis | Cluster)[] = [];
      let lines = 0;
      const limiter = () => {
        const client = topology.client();
        clients.push(client);
        return new RateLimiter({
          algorithm: makeAlgorithm(algorithm, limit),
          store: new RedisStore({ client }),
          prefix: PREFIX,
          onStoreError: policy,
          logger: { warn: () => void lines++ },
        });
      };
      try {
        const apps = [limiter(), limiter()];
        const requests: Request[] = [];
        const pending: Promise<void>[] = [];
        const t0 = performance.now();
        const send = () => {
          const at = performance.now() - t0;
          const app = apps[random() < 0.5 ? 0 : 1]!;
          const decided = app
            .consume(key)
            .then((d): Outcome => (d.allowed ? 'admitted' : 'denied'));
          pending.push(
            within<Outcome>(decided, 3000, 'error').then((outcome) => {
              requests.push({ at, outcome, ms: performance.now() - t0 - at });
            }),
          );
        };
        const gap = () => sleep(5 * (0.5 + random()));
        for (let i = 0; i < before; i++) {
          send();
          await gap();
        }
        await Promise.all(pending);
        const faultAt = performance.now() - t0;
        let promoted = false;
        const failover = (migrate ? topology.migrate!(key) : topology.failover(key)).finally(() => {
          promoted = true;
        });
        // Until the promotion: bounded in count (30 s of sends) and time (30 s).
        for (let i = 0; i < 6000 && !promoted && performance.now() - t0 < faultAt + 30_000; i++) {
          send();
          await gap();
        }
        await failover;
        const healAt = performance.now() - t0;
        for (let i = 0; i < 500; i++) {
          send();
          await gap();
        }
        await Promise.all(pending);
        const elapsed = performance.now() - t0;
        const reader = limiter();
        const remaining = await within(
          reader.peek(key).then((d) => d.remaining),
          3000,
          Number.NaN,
        );
        const refill = algorithm === 'gcra' ? limit / GCRA_PERIOD_MS : 0;
        const f = figures(
          requests,
          {
            faultAt,
            healAt,
            limit,
            allowed: limit + Math.floor(elapsed * refill),
            charged: Number.isNaN(remaining) ? 0 : limit - remaining,
            chargedSince: 0,
          },
          lines,
          0,
        );
        f.note = migrate
          ? `the slot's move took ${Math.round(healAt - faultAt)} ms`
          : `the promotion came ${Math.round(healAt - faultAt)} ms after the kill`;
        return f;
      } finally {
        for (const c of clients) c.disconnect();
        await topology.stop();
      }
    },
  };
}

/** Every failover cell, in the page's order. */
export function topologyCells(): OtherCellSpec[] {
  return (['sentinel-failover', 'cluster-failover', 'cluster-migrate'] as const).flatMap((kind) => [
    topologyCell(kind, 'gcra', 'deny'),
    topologyCell(kind, 'gcra', 'insurance'),
    topologyCell(kind, 'fixed', 'deny'),
  ]);
}
