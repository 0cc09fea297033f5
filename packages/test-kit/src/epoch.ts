/**
 * 2026-01-01T00:00:00Z: tests run at a real epoch time, never from 0 (property traces,
 * redis-cell vectors, the HTTP behaviour table). A whole second, so `X-RateLimit-Reset`
 * values are easy to read.
 */
export const EPOCH = Date.UTC(2026, 0, 1);
