import type { Algorithm } from '../algorithms/algorithm.js';
import { calendarText } from '../algorithms/calendar.js';
import { algorithmKeyTag } from '../algorithms/key-tag.js';
import type { Limit } from '../limits/limit.js';
import { keySegment } from './key-segment.js';

// The one rule for where a limit's keys live, used by every front door: the HTTP plan
// (http/limiter/plan.ts), the protocol limiter of GraphQL, ws and tRPC
// (protocol/protocol-limiter.ts) and RateLimiter (limits/rate-limiter.ts). Written once so
// that the same limit has the same keys whichever front door decides it (ARCHITECTURE.md,
// "Keys"); a change here moves keys, which docs/migrating/upgrading.md must then say.

/**
 * The key prefix of a limit's keys: the limiter's `prefix`, the algorithm's tag (`''` for
 * GCRA and concurrency limits, `'@fw'`, `'@sw'`, `'@log'`, `'@cal'`…: see
 * `algorithmKeyTag`), `:`, then, for a front door that names its limits (HTTP, protocol),
 * the limit's name as a key segment (hashed when long or unusual) and `:`. The tag keeps one
 * algorithm from reading another's state: a limit moved from GCRA to a fixed window starts
 * on fresh keys.
 *
 * @param prefix - the limiter's `prefix` option (`'sl'` by default on HTTP and protocols).
 * @param algorithm - the algorithm that decides the limit's keys.
 * @param name - the limit's name (see {@link limitName}); omitted by `RateLimiter`, whose
 *   keys are `<prefix><tag>:<key>`.
 *
 * @example
 * ```ts
 * limitKeyPrefix('sl', gcra({ rate: 10, period: '1m' }), 'api'); // 'sl:api:'
 * limitKeyPrefix('sl', fixedWindow({ limit: 10, window: '1m' }), 'api'); // 'sl@fw:api:'
 * limitKeyPrefix('jobs', fixedWindow({ limit: 10, window: '1m' })); // 'jobs@fw:'
 * ```
 */
export function limitKeyPrefix(prefix: string, algorithm: Algorithm, name?: string): string {
  const base = `${prefix}${algorithmKeyTag(algorithm)}:`;
  return name === undefined ? base : `${base}${keySegment(name)}:`;
}

/**
 * A limit's name in its keys and draft-8 policies: its own `name`, else one made of what it
 * is: `'adaptive'`, `'concurrent'`, `'<n>-per-<calendar period>'` (`'100-per-month'`) or
 * `'<n>-per-<period in ms>ms'` (`'10-per-60000ms'`).
 *
 * @example
 * ```ts
 * limitName(Limit.perMinute(10)); // '10-per-60000ms'
 * limitName(Limit.perMinute(10).named('api')); // 'api'
 * ```
 */
export function limitName(limit: Limit): string {
  if (limit.name !== undefined) return limit.name;
  if (limit.adaptive !== undefined) return 'adaptive';
  if (limit.concurrent) return 'concurrent';
  if (limit.calendar !== undefined)
    return `${limit.maxAttempts}-per-${calendarText(limit.calendar)}`;
  return `${limit.maxAttempts}-per-${limit.periodMs}ms`;
}
