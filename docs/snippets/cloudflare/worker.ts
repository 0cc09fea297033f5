// src/worker.ts: a Hono app on Cloudflare Workers whose limits hold across every isolate
// and location: each key is decided by the Durable Object of its shard.

import { env } from 'cloudflare:workers';
import { DurableObjectStore } from '@sluice/cloudflare';
import { rateLimit, throttle } from '@sluice/hono';
import { Hono } from 'hono';

// The object class, exported by the Worker and bound as SLUICE in wrangler.toml.
export { SluiceDurableObject } from '@sluice/cloudflare';

// Built at module scope (no I/O until the first request); the namespace is read then.
const store = new DurableObjectStore({ namespace: () => env.SLUICE, shards: 4 });

const app = new Hono();
app.use(rateLimit({ limit: '100/min', store }));
app.post('/login', throttle('5/min', { store }), (c) => c.text('welcome'));
app.get('/', (c) => c.text('hello'));

export default app;
