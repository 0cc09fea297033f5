// Queue instead of deny: a request over the limit waits for its slot (Express), and the
// core's reservation for code that calls a limited API.
import { gcra, Limit, RateLimiter, rateLimit } from '@sluice/express';
import express from 'express';

const app = express();

// 10 requests a second, one at a time: a request over the limit waits for its booked slot
// (up to 5 s, at most 1000 waiting in this process) and is served; one that would wait
// longer, or finds the queue full, gets 429 at once with Retry-After = its wait rounded up.
app.use(
  rateLimit({
    limit: Limit.perSecond(10).named('partner-api'),
    mode: 'queue',
    maxWait: '5s',
    maxQueued: 1000,
  }),
);

app.get('/report', (_req, res) => {
  res.json({ ok: true });
});

app.listen(3000);

// The same in the core: one store call books the slot; wait delayMs, or cancel() to give
// it back exactly (an aborted signal does that for you).
const limiter = new RateLimiter({ algorithm: gcra({ rate: 10, period: '1s', burst: 1 }) });

export async function callPartner(signal: AbortSignal): Promise<void> {
  const slot = await limiter.reserve('partner', { maxWait: '5s', signal });
  if (!slot.allowed) throw new Error(`busy, retry in ${slot.decision.retryAfterMs} ms`);
  await new Promise((resolve) => setTimeout(resolve, slot.delayMs));
  // ...call the partner API
}

// acquire is a reservation plus the wait: one store call, served in arrival order.
export async function callPartnerAndWait(signal: AbortSignal): Promise<boolean> {
  const d = await limiter.acquire('partner', { timeoutMs: 10_000, signal });
  return d.allowed;
}
