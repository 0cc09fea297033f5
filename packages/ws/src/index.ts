/**
 * `@sluice/ws`: WebSocket limits. Messages per user or IP on `ws` sockets
 * (`limitMessages`: close with 1008, pause for TCP backpressure, or drop) and Bun's
 * (`limitBunMessages`), connections at the upgrade (`limitUpgrades`), and socket.io
 * middleware for connections and named events (`limitIoConnections`, `limitIoEvents`).
 *
 * @packageDocumentation
 */
// The application author's names of @sluice/core (its src/index.ts, reviewed in
// packages/core/test/exports/index.txt), as every adapter re-exports them; this package's
// export list shows each change too.
export * from '@sluice/core';
export type { BunWebSocketHandlerLike } from './bun.js';
export { limitBunMessages } from './bun.js';
export type { GateSocket, OnLimit, OnLimited } from './gate.js';
export { CLOSE_REASON } from './gate.js';
export type { LimitMessagesOptions, WsSocketLike } from './messages.js';
export { limitMessages } from './messages.js';
export type { UpgradeRequest, WsLimitOptions } from './options.js';
export type { IoSocketLike, LimitIoEventsOptions, RateLimitedIoError } from './socket-io.js';
export { limitIoConnections, limitIoEvents } from './socket-io.js';
export type { UpgradeLimiter } from './upgrades.js';
export { limitUpgrades } from './upgrades.js';
