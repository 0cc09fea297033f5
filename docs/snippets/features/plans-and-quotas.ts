import { Limit, rateLimit, throttles } from '@sluice/express';
import express from 'express';
import { LRUCache } from 'lru-cache';

interface Plan {
  perMinute: number;
  perMonth: number;
  timeZone: string;
}

// Your database: a tenant's plan (the stand-in answers after a few ms).
async function loadPlan(tenant: string): Promise<Plan> {
  await new Promise((resolve) => setTimeout(resolve, 5));
  return tenant.startsWith('pro')
    ? { perMinute: 600, perMonth: 1_000_000, timeZone: 'America/New_York' }
    : { perMinute: 60, perMonth: 10_000, timeZone: 'Europe/Paris' };
}

// lru-cache's fetch: fresh for a minute, one load per tenant in flight however many
// requests ask, and the stale plan served while a fresh one loads.
const plans = new LRUCache<string, Plan>({
  max: 10_000,
  ttl: 60_000,
  allowStale: true,
  fetchMethod: (tenant) => loadPlan(tenant),
});

// An async named limiter: the plan's per-minute rate, and a monthly quota that resets at
// local midnight on the tenant's billing day, in the tenant's time zone.
throttles.define('plan', async (req) => {
  const tenant = String(req.headers['x-tenant'] ?? req.ip);
  const plan = await plans.fetch(tenant);
  if (plan === undefined) throw new Error('no plan'); // a 500, never an unlimited request
  return [
    Limit.perMinute(plan.perMinute).by(tenant).named('rate'),
    Limit.perCalendarMonth(plan.perMonth, { timeZone: plan.timeZone, anchorDay: 15 })
      .by(tenant)
      .named('month'),
  ];
});

// A chat endpoint billed in tokens: 500 charged upfront on arrival, settled to what it used.
const tokens = Limit.perMinute(100_000)
  .named('tokens')
  .costAfter((_req, res: express.Response) => res.locals.tokens as number, {
    upfront: 500,
    unit: 'tokens',
  });

const app = express();
app.use(rateLimit({ limit: 'throttle:plan', headers: 'draft-8' }));
app.post('/chat', rateLimit({ limit: tokens, headers: 'draft-8' }), (_req, res) => {
  res.locals.tokens = 1234; // what the model reported using
  res.json({ answer: '…' });
});

app.listen(3000);
