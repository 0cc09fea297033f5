/**
 * `@sluice/core/store`: what store and algorithm authors need, and what sibling packages
 * such as `@sluice/redis` build on: the `Algorithm` and `Store` contracts, the algorithm
 * classes behind the factories (each Lua twin reads its parameters), the charge-time and
 * key helpers, the failure machinery (`FailSafeStore`, `CircuitBreaker`, `OverLimitCache`)
 * and option-name checking. Application authors write `@sluice/core` instead.
 *
 * @packageDocumentation
 */
export type {
  Algorithm,
  AlgorithmFamily,
  AlgorithmKind,
  RefundResult,
  State,
  StepResult,
} from './algorithms/algorithm.js';
export { expiryOf } from './algorithms/algorithm.js';
export type { CalendarPeriod, CalendarUnit } from './algorithms/calendar.js';
export { calendarEdges, calendarWindow } from './algorithms/calendar.js';
export { CalendarWindowAlgorithm, calendarQuota } from './algorithms/calendar-window.js';
export { ConcurrencyAlgorithm, DEFAULT_LEASE_MS } from './algorithms/concurrency.js';
export type { CellReply, Decision } from './algorithms/decision.js';
export { FixedWindowAlgorithm } from './algorithms/fixed-window.js';
export { GcraAlgorithm } from './algorithms/gcra.js';
export type { Penalty } from './algorithms/penalty.js';
export {
  blocked,
  DEFAULT_MAX_BLOCK_MS,
  PenaltyAlgorithm,
  parsePenalty,
} from './algorithms/penalty.js';
export { SlidingLogAlgorithm } from './algorithms/sliding-log.js';
export { SlidingWindowAlgorithm } from './algorithms/sliding-window.js';
export { WindowAlgorithm } from './algorithms/window-algorithm.js';
export { isRedisClientLike, SluiceConfigError } from './common/errors.js';
export { checkOptionNames, optionNames } from './common/known-options.js';
export type { LimitAlgorithmFactory } from './limits/limit.js';
export { defaultLimitAlgorithm, limitAlgorithm } from './limits/limit.js';
export type { ResolvedLimitEntry, ResolvedLimits } from './limits/throttle-registry.js';
export { resolveLimitInput } from './limits/throttle-registry.js';
export { THROTTLE_NAME } from './limits/throttle-string.js';
export type { BreakerState, BreakerTicket } from './store-failure/circuit-breaker.js';
export { CircuitBreaker, DEFAULT_COOLDOWN_MS } from './store-failure/circuit-breaker.js';
export { DEFAULT_OVER_LIMIT_KEYS, OverLimitCache } from './store-failure/over-limit-cache.js';
export type { StoreErrorPolicy, StoreFailureLogger } from './store-failure/store-failure.js';
export { DENY_RETRY_MS, FailSafeStore } from './store-failure/store-failure.js';
export {
  isStoreKeyError,
  keyErrorReason,
  StoreKeyError,
} from './store-failure/store-key-error.js';
export type { MemoryKeySpace } from './stores/memory-store.js';
export type { Store, StoreRequest } from './stores/store.js';
export {
  chargeTimeOf,
  consumeEach,
  fullKey,
  recordChargeTime,
  scopeOf,
  withChargeTime,
} from './stores/store.js';
