/**
 * Plans from a database: each tenant's limits come from its plan, read by an async lookup
 * (here a stand-in that takes a few ms) through lru-cache's `fetch`: a TTL, one load per
 * tenant in flight however many requests ask at once, and the stale plan served while a
 * fresh one loads (stale-while-revalidate). The `plan` named limiter awaits it:
 *
 * - `GET /api/plan`: the plan's requests per minute, and its monthly quota counted in
 *   Europe/Paris's calendar (`Limit.perCalendarMonth`: it resets at local midnight on the
 *   1st, whatever the month's length).
 */
import { Limit, throttles } from '@sluice/core';
import { LRUCache } from 'lru-cache';
import { bearerUser } from './limits.js';

export interface Plan {
  name: 'free' | 'pro';
  perMinute: number;
  perMonth: number;
}

export const PLANS: Readonly<Record<Plan['name'], Plan>> = {
  free: { name: 'free', perMinute: 5, perMonth: 1_000 },
  pro: { name: 'pro', perMinute: 100, perMonth: 100_000 },
};

/** How many times the "database" was asked (the cache keeps it low). */
export const planLoads = { count: 0 };

/** The demo's stand-in for a database query: tenants named `pro…` are on the pro plan. */
async function loadPlan(tenant: string): Promise<Plan> {
  planLoads.count++;
  await new Promise((resolve) => setTimeout(resolve, 5));
  return tenant.startsWith('pro') ? PLANS.pro : PLANS.free;
}

/** Plans by tenant: fresh for a minute, then served stale while one reload runs. */
export const plans = new LRUCache<string, Plan>({
  max: 10_000,
  ttl: 60_000,
  allowStale: true,
  fetchMethod: (tenant) => loadPlan(tenant),
});

throttles.define('plan', async (req) => {
  const tenant = bearerUser(req.headers) ?? `ip:${req.ip}`;
  const plan = await plans.fetch(tenant);
  // A failed load rejects (a 500), never an unlimited request.
  if (plan === undefined) throw new Error('plan lookup gave nothing');
  return [
    Limit.perMinute(plan.perMinute).by(tenant).named('plan'),
    Limit.perCalendarMonth(plan.perMonth, { timeZone: 'Europe/Paris' })
      .by(tenant)
      .named('plan-month'),
  ];
});
