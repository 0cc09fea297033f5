// The Redis conformance suite (conformance.ts) on every client, on Sentinel (a master, a replica, 3 sentinels; the master killed at the end).
import { conformanceSuite } from './conformance.js';

conformanceSuite('sentinel');
