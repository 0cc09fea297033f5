import { nodeRequire } from '../../common/node-require.js';
import type { OtelApi } from './meter.js';

/**
 * Loads `@opentelemetry/api` if it is installed (see `nodeRequire`: this module's `require`,
 * else resolved from this file, the entry script, the working directory). `undefined` when
 * none finds it, and where the runtime has no Node module loader (Workers, Vercel's edge
 * runtime: pass `metrics: { meterProvider }` there); never throws.
 */
export function loadOpenTelemetryApi(): OtelApi | undefined {
  return nodeRequire<OtelApi>(
    '@opentelemetry/api',
    (api) => typeof (api as OtelApi | undefined)?.metrics?.getMeter === 'function',
  );
}
