/**
 * 2026-01-01T00:00:00Z: tests run at a real epoch time, never from 0 (property traces,
 * redis-cell vectors, the HTTP behaviour table). A whole second, so `X-RateLimit-Reset`
 * values are easy to read.
 */
export const EPOCH = Date.UTC(2026, 0, 1);

/**
 * 2037-01-01T00:00:00Z, a Thursday of a non-leap year like {@link EPOCH} (the same calendar):
 * the time base of traces on a store that also sweeps states out by its own real clock (the
 * Durable Object's alarm deletes states expired a minute before real time), where a trace in
 * 2026 would see live states swept mid-trace.
 */
export const FUTURE_EPOCH = Date.UTC(2037, 0, 1);
