/**
 * `@sluice/core/store`: what store and algorithm authors need, and what sibling packages
 * such as `@sluice/redis` build on: the `Algorithm` and `Store` contracts, the algorithm
 * classes behind the factories (each Lua twin reads its parameters), the charge-time and
 * key helpers, the failure machinery (`FailSafeStore`, its defaults, the errors every store
 * rejects with: `StoreTimeoutError`, `StoreAbandonedError`)
 * and option-name checking. Application authors write `@sluice/core` instead.
 *
 * @packageDocumentation
 */

export type { AdaptiveConcurrency } from './adaptive/adaptive-concurrency.js';
export type { AdaptiveAlgorithm, AdaptiveGate } from './adaptive/adaptive-gate.js';
export type {
  Algorithm,
  AlgorithmKind,
  RefundResult,
  ReserveResult,
  State,
  StepResult,
} from './algorithms/algorithm.js';
export { expiryOf } from './algorithms/algorithm.js';
export { checkMax, grantsPartially, stepAtMost } from './algorithms/at-most.js';
export type { CalendarPeriod } from './algorithms/calendar.js';
export { calendarEdges } from './algorithms/calendar.js';
export { CalendarWindowAlgorithm, calendarQuota } from './algorithms/calendar-window.js';
export { ConcurrencyAlgorithm } from './algorithms/concurrency.js';
export type { CellReply, Decision } from './algorithms/decision.js';
export { FixedWindowAlgorithm } from './algorithms/fixed-window.js';
export { GcraAlgorithm } from './algorithms/gcra.js';
export { blocked, PenaltyAlgorithm, parsePenalty } from './algorithms/penalty.js';
export { SlidingLogAlgorithm } from './algorithms/sliding-log.js';
export { SlidingWindowAlgorithm } from './algorithms/sliding-window.js';
export { isRedisClientLike, SluiceConfigError } from './common/errors.js';
export { checkOptionNames, optionNames } from './common/known-options.js';
export type { OtelApi } from './http/metrics/meter.js';
export { loadOpenTelemetryApi } from './http/metrics/otel-loader.js';
export type { LimitAlgorithmFactory, LimitQuota } from './limits/limit.js';
export { limitAlgorithm } from './limits/limit.js';
export { resolveLimitInput } from './limits/throttle-registry.js';
export type {
  OperationEntry,
  OperationKind,
  OperationSubject,
  OperationsSync,
} from './operations/entry.js';
export { releaseOperations } from './operations/registry.js';
export { enableOperations } from './operations/snapshot.js';
export type { OperationsOptions } from './operations/store-sync.js';
export {
  entriesInForce,
  OperationListeners,
  parseOperationsOption,
} from './operations/store-sync.js';
export type { CircuitBreakerOptions } from './store-failure/circuit-breaker.js';
export { DEFAULT_COOLDOWN_MS } from './store-failure/circuit-breaker.js';
export type { OverLimitCacheOptions } from './store-failure/over-limit-cache.js';
export { DEFAULT_OVER_LIMIT_KEYS } from './store-failure/over-limit-cache.js';
export { StoreAbandonedError, StoreTimeoutError } from './store-failure/store-call-errors.js';
export type {
  FailSafeStoreOptions,
  StoreErrorPolicy,
  StoreFailureLogger,
} from './store-failure/store-failure.js';
export { DENY_RETRY_MS, FailSafeStore } from './store-failure/store-failure.js';
export { keyErrorReason, StoreKeyError } from './store-failure/store-key-error.js';
export {
  isStoreNotReadyError,
  StoreNotReadyError,
} from './store-failure/store-not-ready-error.js';
export type { Store, StoreRequest, StoreReservation } from './stores/store.js';
export {
  chargeTimeOf,
  consumeEach,
  fullKey,
  recordChargeTime,
  storeReady,
  withChargeTime,
} from './stores/store.js';
