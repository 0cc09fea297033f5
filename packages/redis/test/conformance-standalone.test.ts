// The Redis conformance suite (conformance.ts) on every client, on a standalone Redis.
import { conformanceSuite } from './conformance.js';

conformanceSuite('standalone');
