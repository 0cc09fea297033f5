// The incident of docs/guide/operating.md: one store shared by the app's limits and the
// operator's LimitOperations; ban, lift, let a partner through, deny a range, raise a tenant.

// #region setup
import { LimitOperations, MemoryStore } from '@sluice/core';
import { rateLimit } from '@sluice/express';
import express, { type Express } from 'express';

const store = new MemoryStore(); // RedisStore in a fleet: the same code reaches every process
const app: Express = express();
app.use(rateLimit({ limit: '100/min', store })); // no option for the operations: it obeys them
const ops = new LimitOperations({ store }); // same store, same prefix ('sl', the default)
// #endregion setup

export async function incident(): Promise<void> {
  // #region act
  // 1. Who is being denied? (hashed ids unless you ask for them)
  console.table(ops.top(10, { ids: true }));

  // 2. Ban the scraper for an hour: 429 with Retry-After = what is left of the hour.
  await ops.ban({ ip: '203.0.113.7' }, { for: '1h', reason: 'scraping /search' });

  // 3. Deny a hostile range (403), IPv4 and IPv6 alike.
  await ops.deny('198.51.100.0/24', { for: '1d' });
  await ops.deny('2001:db8:bad::/48');

  // 4. Let the partner's network through every limit.
  await ops.allow('192.0.2.0/24');

  // 5. Give one tenant a higher limit until the end of the month, on the same keys.
  await ops.override({ user: 'acme' }, '1000/min', { for: '30d', reason: 'plan upgrade' });

  // 6. Check, then lift the ban early.
  console.log(await ops.inspect({ ip: '203.0.113.7' }));
  console.log(await ops.list());
  await ops.unban({ ip: '203.0.113.7' });
  // #endregion act
}

export { app };
