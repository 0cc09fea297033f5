// The Redis conformance suite (conformance.ts) on every client, on a 3-master Redis Cluster.
import { conformanceSuite } from './conformance.js';

conformanceSuite('cluster');
