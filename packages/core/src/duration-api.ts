/**
 * `@sluice/core/duration`: how sluice reads a duration, for packages that must not load the
 * rest of the core. `@sluice/client` reads `pacedFetch`'s `maxWait` with it, so `'30s'` means
 * the same on both sides; a browser bundle of it holds this module, its error class and the
 * `ms` package, nothing else (no `node:` module, no framework).
 *
 * @packageDocumentation
 */
export { type Duration, durationMs, parseDuration } from './common/duration.js';
