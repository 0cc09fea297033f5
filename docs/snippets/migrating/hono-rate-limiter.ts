import { type RateLimitEnv, rateLimit, throttle } from '@sluice/hono';
import { Hono } from 'hono';

// Before (hono-rate-limiter):
//   app.use(rateLimiter({ windowMs: 60_000, limit: 100, standardHeaders: 'draft-6',
//     keyGenerator: (c) => c.req.header('x-forwarded-for') ?? '' }));
// After: the client IP comes from the runtime's connection info; no key generator needed.
const app = new Hono<RateLimitEnv>();
app.use(rateLimit({ limit: '100/min', headers: 'draft-6' }));
app.post('/login', throttle('5/min'), (c) => c.json({ remaining: c.get('rateLimit').remaining }));

export default app;
