import type { Decision } from '../algorithms/decision.js';
import type { RequestView } from '../limits/request-view.js';
import type { OperationsSnapshot } from '../operations/snapshot.js';
import { type ProtocolCharge, ProtocolVerdict } from './protocol-verdict.js';

/**
 * What operator entries (`LimitOperations`) answer for a unit of protocol work, before any
 * limit is charged: an allow passes it unlimited, a deny refuses it for good
 * (`retryAfterMs` -1), a ban until it ends. `undefined`: the configured limits decide
 * (overrides apply to HTTP limits and `RateLimiter` only). An `{ ip }` entry applies when the
 * work's IP group (`subnet`, the limiter's `ipv6Subnet`) holds its address.
 */
// biome-ignore lint/complexity/useMaxParams: one call per unit of work; positional
export function operatedVerdict(
  ops: OperationsSnapshot,
  view: RequestView,
  key: string | undefined,
  charges: ProtocolCharge[],
  cost: number,
  now: number,
  subnet: number | ((req: RequestView) => number),
): ProtocolVerdict | undefined {
  if (!ops.live(now)) return undefined;
  const user = view.userId === undefined ? undefined : String(view.userId);
  const match = ops.check(view.ip, user, key, subnet, view);
  if (match === undefined || match.kind === 'override') return undefined;
  if (match.kind === 'allow') return ProtocolVerdict.unlimited(cost);
  const left =
    match.kind === 'deny' ? -1 : Math.max(1, (match.entry.until ?? Number.POSITIVE_INFINITY) - now);
  ops.denied(
    key !== undefined ? `key:${key}` : user !== undefined ? `user:${user}` : `ip:${view.ip}`,
  );
  const decisions = charges.map(
    (c): Decision => ({
      allowed: false,
      limit: 0,
      remaining: 0,
      retryAfterMs: left,
      resetAfterMs: Math.max(0, left),
      cost: c.cost,
    }),
  );
  return decisions.length === 0 ? undefined : new ProtocolVerdict(decisions, charges);
}
