// The store conformance suite on RedisStore over a Valkey GLIDE GlideClient, on a standalone
// redis-server (glide-conformance.ts). Named conformance-*: like the client matrix, it runs
// once in CI, on one Node (.ci/run).
import { describeGlideConformance } from './glide-conformance.js';

describeGlideConformance('standalone');
