import { SluiceConfigError } from '../../common/errors.js';
import { Verdict } from './verdict.js';

/**
 * The `mode` option:
 * - `'enforce'` (default): a request a limit denies gets the 429 answer;
 * - `'shadow'`: every request is decided and charged as usual, gets the rate-limit headers,
 *   and a request the limit denies is counted (`onLimited` is called with
 *   `{ shadow: true }`, metrics count it `shadow_limited`) but **admitted**: no 429, no
 *   `Retry-After`, the handler runs. For watching a new limit on real traffic before
 *   enforcing it. Source of semantics: Envoy's rate-limit filter `shadow_mode`
 *   (decide and report, never deny) and nginx's `limit_req_dry_run`.
 * - `'queue'`: a request over the limit waits for its booked slot (one reservation, see
 *   `RateLimiter.reserve`) up to `maxWait`, then is served; past `maxWait`, or with
 *   `maxQueued` requests already waiting, it gets the 429 answer at once. GCRA and the
 *   buckets only. Source of semantics: nginx's `limit_req` with `burst` (requests delayed, not
 *   refused) and Redisson's `RRateLimiter.tryAcquire` with a timeout.
 */
export type LimitMode = 'enforce' | 'shadow' | 'queue';

/**
 * The third argument of `onLimited(req, decision, info)`: `shadow` is `true` when the
 * denial was not enforced (`mode: 'shadow'`: the request goes on), `false` when the
 * request gets the 429 answer.
 */
export interface LimitedInfo {
  /** `true`: `mode: 'shadow'` let the request through; `false`: it is answered 429. */
  readonly shadow: boolean;
}

/** `onLimited`'s `info` for an enforced denial. */
export const ENFORCED: LimitedInfo = Object.freeze({ shadow: false });
/** `onLimited`'s `info` for a shadowed denial. */
export const SHADOWED: LimitedInfo = Object.freeze({ shadow: true });

/**
 * Parses the `mode` option; `true` for `'shadow'` (`'queue'`: see `parseQueue`).
 * @throws {@link SluiceConfigError} naming `mode`.
 */
export function parseMode(mode: unknown): boolean {
  if (mode === undefined || mode === 'enforce') return false;
  if (mode === 'shadow') return true;
  if (mode === 'queue') return false;
  throw new SluiceConfigError('mode', mode, "'enforce', 'shadow' or 'queue'");
}

/**
 * The verdict of a request its limit denied under `mode: 'shadow'`: `allowed` (the adapter
 * lets it through, no `Retry-After` is written), while `decision` is the limit's real
 * denial (what `req.rateLimit` shows: `allowed: false`, `remaining: 0`, `retryAfterMs`)
 * and the rate-limit headers report it.
 */
export class ShadowVerdict extends Verdict {
  override readonly allowed: boolean = true;
  /** Always `true`: the limit denied this request and shadow mode admitted it. */
  readonly shadowed = true;
}
