import { createRequire } from 'node:module';
import type { OtelApi } from './meter.js';

/**
 * Loads `@opentelemetry/api` if it is installed: with this module's `require` (CommonJS),
 * else resolved from this file, then from the application's entry script, then from the
 * working directory. `undefined` when none finds it; never throws.
 */
export function loadOpenTelemetryApi(): OtelApi | undefined {
  const attempts: (() => unknown)[] = [];
  if (typeof require === 'function') attempts.push(() => require('@opentelemetry/api'));
  const bases = [
    typeof __filename === 'string' ? __filename : undefined,
    process.argv[1],
    `${process.cwd()}/index.js`,
  ];
  for (const base of bases) {
    if (base) attempts.push(() => createRequire(base)('@opentelemetry/api'));
  }
  for (const attempt of attempts) {
    try {
      const api = attempt() as OtelApi | undefined;
      if (typeof api?.metrics?.getMeter === 'function') return api;
    } catch {
      // not installed where this base looks: try the next one
    }
  }
  return undefined;
}
