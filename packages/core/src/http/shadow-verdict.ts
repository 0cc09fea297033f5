import { Verdict } from './verdict.js';

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
