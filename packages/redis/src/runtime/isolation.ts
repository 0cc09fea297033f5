/**
 * Whether this runtime isolates requests from one another: on Cloudflare Workers (workerd,
 * `navigator.userAgent` `'Cloudflare-Workers'`) a promise one request created and another
 * request's I/O settles is cancelled ("your Worker's code had hung"), and a request's timers
 * end with it. There the store shares nothing between calls: no batch across calls (each
 * call's script is sent at once, in its caller's request), a timer per call for its
 * timeout, no shared version check, and no prefetch. Read once, at load (no timer, no I/O).
 */
export const ISOLATED_REQUESTS: boolean =
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent ===
  'Cloudflare-Workers';
