// A jest test of an Express app that uses sluice: a fresh app per test (fresh counters),
// an injected clock (no waiting), and a store the test can reset.
import type { AddressInfo } from 'node:net';
import { MemoryStore, throttle } from '@sluice/express';
import express from 'express';

/** The app under test; production passes nothing and gets the defaults. */
function buildApp(options: { clock?: () => number; store?: MemoryStore } = {}) {
  const app = express();
  app.post('/login', throttle('throttle:5,1', options), (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

/** Starts `app` on a free port, sends `n` POST /login, returns the statuses. */
async function login(app: express.Express, n: number): Promise<number[]> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`http://127.0.0.1:${port}/login`, { method: 'POST' });
    statuses.push(res.status);
  }
  await new Promise((resolve) => server.close(resolve));
  return statuses;
}

describe('POST /login', () => {
  it('admits 5 quick attempts, then answers 429', async () => {
    // No store option: each app has its own MemoryStore, so this test starts from zero
    // whatever the other tests did.
    expect(await login(buildApp(), 6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('admits one more attempt 12 s later (GCRA refills one every 60 s / 5)', async () => {
    let now = Date.UTC(2030, 0, 1); // the clock is ms since the Unix epoch
    const app = buildApp({ clock: () => now });
    expect(await login(app, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    now += 12_000; // no sleeping: move the injected clock
    expect(await login(app, 2)).toEqual([200, 429]);
  });

  it('starts over once the store forgets the key', async () => {
    const store = new MemoryStore();
    const app = buildApp({ store });
    expect(await login(app, 6)).toContain(429);
    // The default key: <prefix>:<limit name>:<route>:<ip or user>:<subject>.
    store.reset('sl:5-per-60000ms:POST /login:ip:127.0.0.1');
    expect(await login(app, 1)).toEqual([200]);
  });
});
