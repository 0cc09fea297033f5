// Shadow mode: watch a new limit on real traffic before enforcing it (Express).
import { Limit, rateLimit, throttle } from '@sluice/express';
import express from 'express';

const app = express();

// Decided and charged as usual, headers sent, never denied: each request the limit would
// have answered with a 429 goes on, and onLimited hears of it with { shadow: true }.
app.use(
  rateLimit({
    limit: Limit.perMinute(100).named('api-v2'),
    mode: 'shadow',
    onLimited: (req, decision, info) => {
      if (info.shadow)
        console.warn(`would limit ${req.route} (retry in ${decision.retryAfterMs} ms)`);
    },
    metrics: true, // counted as sluice.result="shadow_limited"
  }),
);

// The handler still sees the limit's own decision: allowed is false for a shadowed request.
app.get('/api/items', (req, res) => {
  res.json({ items: [], wouldBeLimited: req.rateLimit?.allowed === false });
});

// Once the numbers look right, enforce it: drop `mode` (the default is 'enforce').
app.post(
  '/login',
  throttle(Limit.perMinute(5).named('login'), { mode: 'enforce' }),
  (_req, res) => {
    res.json({ ok: true });
  },
);

app.listen(3000);
