// A Cluster failover on ioredis and on node-redis 6 and 5 (the scenario: cluster-failover.ts).
import { type ClientKind, connect } from './clients.js';
import { describeClusterFailover } from './cluster-failover.js';

const KINDS: ClientKind[] = ['ioredis', 'node-redis 6', 'node-redis 5'];

describe.each(KINDS)('%s', (kind) => {
  describeClusterFailover(kind, (ports) => connect(kind, { topology: 'cluster', ports }));
});
