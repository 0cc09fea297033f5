/**
 * `@sluice/core/shared`: the core's names that `@sluice/client` shares (`SluiceConfigError`, the
 * header styles, `closestName`: the "did you mean" of unknown options), for packages that
 * must not load the rest of the core (a browser bundle of it holds `SluiceConfigError`, its
 * brand and `closestName`, nothing else: no `node:` module, no framework, no side effect). One definition
 * of each: `instanceof SluiceConfigError` holds for an error either package throws, and
 * the header styles the client reads are the ones the core writes.
 *
 * @packageDocumentation
 */
export { closestName } from './common/closest-name.js';
export { SluiceConfigError } from './common/errors.js';
export type { HeaderStyle } from './http/verdict/headers.js';
