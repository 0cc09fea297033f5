// The store conformance suite on RedisStore over a Valkey GLIDE GlideClusterClient, on a
// 3-master Redis Cluster (glide-conformance.ts). Named conformance-*: it runs once in CI, on
// one Node (.ci/run).
import { describeGlideConformance } from './glide-conformance.js';

describeGlideConformance('Cluster');
