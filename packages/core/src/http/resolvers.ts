import { describe } from '../common/errors.js';
import { keySegment } from './keys.js';

/**
 * The key segment of what the `key` option returned (or resolved to): a string, or a
 * finite number (as text). Anything else (a promise of a promise, an object, `undefined`)
 * is a `TypeError` naming the option, never a bucket shared by every request
 * (`'[object Promise]'`, `'undefined'`).
 */
export function keySubject(value: unknown): string {
  if (typeof value === 'string') return keySegment(value);
  if (typeof value === 'number' && Number.isFinite(value)) return keySegment(String(value));
  throw new TypeError(
    `sluice: the key option must return a string or a finite number (or a promise of one), got ${describe(value)}`,
  );
}
