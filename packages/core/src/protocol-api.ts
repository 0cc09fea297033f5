/**
 * `@sluice/core/protocol`: what front-door authors build a front door with
 * (`@sluice/graphql`, `@sluice/ws`, `@sluice/trpc`, `@sluice/ai`): `ProtocolLimiter` (the
 * engine's verdict for one protocol call, with bans, allows and overrides applied), its
 * options and the verdict to settle, the store options every front door takes
 * (`protocolStoreOptions`), the request view of a call (`protocolView`), the `headers`
 * parser, and the meter types a front door records its own metrics with. Application
 * authors write `@sluice/core` (or a front door's package) instead.
 *
 * @packageDocumentation
 */

export type { MeterLike, MeterProviderLike, MetricAttributes } from './http/metrics/meter.js';
export type { HeaderStyle } from './http/verdict/headers.js';
export type { ProtocolCheckOptions, ProtocolLimiterOptions } from './protocol/protocol-limiter.js';
export { ProtocolLimiter } from './protocol/protocol-limiter.js';
export type { ProtocolRequest, ProtocolStoreOptions } from './protocol/protocol-options.js';
export {
  PROTOCOL_STORE_OPTIONS,
  protocolStoreOptions,
  protocolView,
} from './protocol/protocol-options.js';
export type { ProtocolCharge } from './protocol/protocol-verdict.js';
export { ProtocolVerdict, parseHeaderStyles } from './protocol/protocol-verdict.js';
export type { StoreFailureLogger } from './store-failure/store-failure.js';
