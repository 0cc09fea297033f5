import { type Charge, consumeAt } from '../http/limiter/charge.js';
import type { LimitPlan, PlannedLimit } from '../http/limiter/plan.js';
import { ipSubject } from '../http/request/keys.js';
import { keySegment } from '../keys/key-segment.js';
import type { OperationSubject } from './entry.js';
import type { Inspectable, InspectedKey } from './snapshot.js';

/**
 * An HTTP limiter's plan as `inspect()` sees it: its static limits' keys for a subject (per
 * route seen so far for an IP or a user, the `key` option's space for a key). Here, not in plan.ts, so a bundle without operations
 * does not carry it.
 */
export function planInspector(plan: LimitPlan): Inspectable {
  return {
    inspect: (subject, now) => inspectPlan(plan, subject, now),
    // An override naming none changes the rate limits only: only a named one can miss.
    unoverridable: (_subject, name) => {
      if (name === undefined) return undefined;
      const p = plan.static?.find((x) => x.name === name);
      return p === undefined
        ? undefined
        : p.adaptiveLimit !== undefined
          ? 'Limit.adaptive'
          : p.concurrent
            ? 'Limit.concurrent'
            : undefined;
    },
  };
}

async function inspectPlan(
  plan: LimitPlan,
  subject: OperationSubject,
  now: number,
): Promise<InspectedKey[]> {
  const out: InspectedKey[] = [];
  const match = plan.operations?.check(
    'ip' in subject ? subject.ip : undefined,
    'user' in subject ? subject.user : undefined,
    'key' in subject ? subject.key : undefined,
  );
  let planned = plan.static ?? [];
  if (match?.kind === 'override') planned = plan.overridden(planned, match.overrides);
  for (const p of planned) {
    if (p.adaptiveLimit !== undefined) continue;
    const charges: Charge[] = [];
    const base = { algorithm: p.algorithm, cost: 0 };
    if ('key' in subject) {
      charges.push({ ...base, keySpace: p.keySpace, subject: keySegment(subject.key) });
    } else if (p.byKeySpace === undefined) {
      for (const [route, spaces] of p.routes) {
        if ('user' in subject) {
          charges.push({ ...base, keySpace: spaces.user, subject: keySegment(subject.user) });
        } else if ('ip' in subject) {
          charges.push({
            ...base,
            keySpace: spaces.ip,
            subject: ipKey(plan, p, route, subject.ip),
          });
        }
      }
    }
    for (const charge of charges) {
      const d = await consumeAt(plan.store, charge, 0, now);
      out.push({
        name: p.name,
        key: charge.keySpace.prefix + charge.subject,
        remaining: d.remaining,
        limit: d.limit,
        resetMs: d.resetAfterMs,
      });
    }
  }
  return out;
}

/**
 * The key subject of `ip` on `route` under `p`: grouped by the limiter's `ipv6Subnet` (a
 * function is asked with a view of that route and address alone; /64 when it throws).
 */
function ipKey(plan: LimitPlan, p: PlannedLimit, route: string, ip: string): string {
  const view = { method: 'GET', route, ip, headers: {}, raw: {} };
  try {
    return plan.chargeOf(view, p, undefined).subject;
  } catch {
    return ipSubject(ip, 64);
  }
}
