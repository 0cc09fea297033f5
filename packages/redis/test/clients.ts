// Every Redis client RedisStore takes, built for every topology, the same way in the test
// process and in forked workers: what the conformance suite runs on.

import { Cluster, Redis } from 'ioredis';
import { Redis as IoValkey, Cluster as IoValkeyCluster } from 'iovalkey';
import { createClient, createCluster, createSentinel } from 'redis';
import {
  createClient as createClient5,
  createCluster as createCluster5,
  createSentinel as createSentinel5,
} from 'redis5';
import type { RedisClient } from '../src/index.js';

/**
 * The clients: ioredis (6, or 5 with SLUICE_IOREDIS=5), iovalkey, node-redis 6 and 5 (the
 * `redis` package and its `redis5` alias).
 */
export const CLIENT_KINDS = ['ioredis', 'iovalkey', 'node-redis 6', 'node-redis 5'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const TOPOLOGIES = ['standalone', 'cluster', 'sentinel'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/** Where a topology's servers listen (plain data, sent to workers). */
export type Endpoints =
  | { topology: 'standalone'; port: number }
  | { topology: 'cluster'; ports: number[] }
  | { topology: 'sentinel'; name: string; sentinelPorts: number[] };

export interface TestClient {
  client: RedisClient;
  close(): Promise<void>;
}

const host = '127.0.0.1';

/** A connected client of `kind` on the servers of `endpoints`. */
export async function connect(kind: ClientKind, endpoints: Endpoints): Promise<TestClient> {
  if (kind === 'ioredis' || kind === 'iovalkey') {
    // The two packages' classes have the same shape, not the same types.
    const [R, C] = (kind === 'ioredis'
      ? [Redis, Cluster]
      : [IoValkey, IoValkeyCluster]) as unknown as [typeof Redis, typeof Cluster];
    const client =
      endpoints.topology === 'standalone'
        ? new R({ host, port: endpoints.port })
        : endpoints.topology === 'cluster'
          ? new C(endpoints.ports.map((port) => ({ host, port })))
          : new R({
              name: endpoints.name,
              sentinels: endpoints.sentinelPorts.map((port) => ({ host, port })),
            });
    // A lost connection is an error event (the failover, the stall): logged by the client
    // unless someone listens.
    client.on('error', () => undefined);
    await client.ping();
    return {
      client: client as unknown as RedisClient,
      close: async () => void client.disconnect(),
    };
  }
  const v6 = kind === 'node-redis 6';
  // The two majors' factories take the same options here, with types of their own.
  const [make, makeCluster, makeSentinel] = (
    v6
      ? [createClient, createCluster, createSentinel]
      : [createClient5, createCluster5, createSentinel5]
  ) as [typeof createClient, typeof createCluster, typeof createSentinel];
  const client =
    endpoints.topology === 'standalone'
      ? make({ socket: { host, port: endpoints.port } })
      : endpoints.topology === 'cluster'
        ? makeCluster({ rootNodes: endpoints.ports.map((port) => ({ socket: { host, port } })) })
        : makeSentinel({
            name: endpoints.name,
            sentinelRootNodes: endpoints.sentinelPorts.map((port) => ({ host, port })),
          });
  // A lost connection is an error event; without a listener Node would throw it.
  (client as unknown as { on(e: string, f: () => void): void }).on('error', () => undefined);
  await (client as unknown as { connect(): Promise<unknown> }).connect();
  return {
    client: client as unknown as RedisClient,
    close: async () => {
      const c = client as unknown as { destroy?: () => void; disconnect?: () => Promise<void> };
      if (typeof c.destroy === 'function') c.destroy();
      else await c.disconnect?.();
    },
  };
}
