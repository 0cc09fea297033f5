// What the packages' tests and the bench share; each concern in its own file.
export * from './epoch.js';
export * from './export-names.js';
export * from './gate.js';
export * from './http-appdata-rules.js';
export * from './http-behaviours.js';
export * from './http-config-rules.js';
export * from './http-harness.js';
export * from './http-ops-behaviours.js';
export * from './http-outcome-rules.js';
export * from './http-pipeline-rules.js';
export * from './http-silent-rules.js';
export * from './otel-capture.js';
export * from './package-exports.js';
export * from './redis-server.js';
export * from './secrets.js';
export * from './type-equality.js';
export * from './vectors.js';
