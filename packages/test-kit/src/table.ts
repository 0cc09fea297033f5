// The shared behaviour table and what fetch-standard harnesses need of test-kit, without the
// Node-only fixtures (redis-server, export lists, package probes): what the table runners
// bundle for Bun, Deno and workerd import as `@sluice/test-kit`.
export * from './behaviour-tables.js';
export * from './epoch.js';
export * from './fetch-harness.js';
export * from './framework-shapes.js';
export * from './gate.js';
export * from './http-appdata-rules.js';
export * from './http-behaviours.js';
export * from './http-config-rules.js';
export * from './http-harness.js';
export * from './http-inherit-rules.js';
export * from './http-operator-rules.js';
export * from './http-ops-behaviours.js';
export * from './http-outcome-rules.js';
export * from './http-pipeline-rules.js';
