// The runnable example of the tRPC guide (examples/protocols/src/trpc-app.ts): 5 calls per
// minute per user, then 429 with Retry-After 12 and data.retryAfter 12 (on the real clock: less
// the whole seconds the calls took, on a loaded machine).
import type { AddressInfo } from 'node:net';
import { trpcServer } from '../../../examples/protocols/src/trpc-app.js';

it('the guide example admits 5 calls a minute per user, then answers 429 with retryAfter', async () => {
  const server = trpcServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hello`;
  try {
    const got: [number, string | null, unknown][] = [];
    const started = Date.now();
    for (let i = 0; i < 7; i++) {
      const res = await fetch(url, { headers: { 'x-user': 'ada' } });
      const body = (await res.json()) as {
        result?: { data: string };
        error?: { data: { retryAfter?: number } };
      };
      got.push([
        res.status,
        res.headers.get('retry-after'),
        body.result?.data ?? body.error?.data.retryAfter,
      ]);
    }
    expect(got.slice(0, 5)).toEqual(Array(5).fill([200, null, 'hello ada']));
    // GCRA at 5/min: one call every 12 s; the 6th waits 12 s from the first, less the time since.
    const took = Math.ceil((Date.now() - started) / 1000);
    for (const [status, header, retryAfter] of got.slice(5)) {
      expect(status).toBe(429);
      expect(header).toBe(String(retryAfter));
      expect(retryAfter).toBeLessThanOrEqual(12);
      expect(retryAfter).toBeGreaterThanOrEqual(12 - took);
    }
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
