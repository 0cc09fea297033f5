import { EPOCH, VirtualTime } from '@sluice/test-kit';
import { pacedFetch } from '../src/index.js';
import { type Adapter, startServer } from './servers.js';

// Requests against a sluice server at 10/s (GCRA, a burst of 10), each adapter, each header
// style, on virtual time shared by the server's `clock` and the client's `clock` / `sleep`
// (requests reach the app in process, through light-my-request): at most one 429, and the
// whole run within 5 % of the ideal n/10 s (the bucket starts full, so the first 10 go at
// once). 1,000 requests once per adapter (draft-8 headers); 200 for each other style, which
// only changes the header pacedFetch reads (the suite runs on four Node majors in CI: the
// long runs would take 3 minutes each time). Without pacing, 1,000 get 990 429s.
const ADAPTERS: Adapter[] = ['express', 'fastify', 'koa'];
const STYLES = ['legacy', 'draft-6', 'draft-7', 'draft-8'] as const;
const RATE = 10;
const requestsFor = (style: (typeof STYLES)[number]) => (style === 'draft-8' ? 1000 : 200);

async function run(
  adapter: Adapter,
  style: (typeof STYLES)[number],
  callers: number,
  n = requestsFor(style),
) {
  const time = new VirtualTime(EPOCH + 123);
  const server = await startServer({ adapter, headers: style, clock: time.clock });
  try {
    const api = pacedFetch(time.wrap(server.fetch), {
      clock: time.clock,
      sleep: time.sleep,
      maxWait: 200_000,
    });
    const start = time.now;
    const statuses: number[] = [];
    const one = async () => statuses.push((await api(server.url)).status);
    const work: Promise<unknown> =
      callers === 0
        ? Promise.all(Array.from({ length: n }, one))
        : Promise.all(
            Array.from({ length: callers }, async () => {
              for (let i = 0; i < n / callers; i++) await one();
            }),
          );
    await time.run(work);
    const served = server.log.filter((l) => l.status === 200).length;
    const denied = server.log.filter((l) => l.status === 429).length;
    return { n, elapsed: time.now - start, served, denied, statuses };
  } finally {
    await server.close();
  }
}

jest.setTimeout(120_000);

/** Everything served, at most one 429, within 5 % of n/RATE s (the first 10 at once). */
function expectPaced(r: Awaited<ReturnType<typeof run>>): void {
  expect(r.served).toBe(r.n);
  expect(r.denied).toBeLessThanOrEqual(1);
  expect(r.elapsed).toBeGreaterThanOrEqual(((r.n - 10) / RATE) * 1000);
  expect(r.elapsed).toBeLessThanOrEqual((r.n / RATE) * 1000 * 1.05);
}

describe.each(ADAPTERS)('pacedFetch against @sluice/%s at 10/s', (adapter) => {
  it.each(STYLES)(
    '%s headers: every request at once, at most one 429, within 5%% of the ideal',
    async (style) => {
      const r = await run(adapter, style, 0);
      expectPaced(r);
      expect(r.statuses.every((s) => s === 200)).toBe(true);
    },
  );

  it.each(STYLES)('%s headers: 50 concurrent callers, the same', async (style) => {
    expectPaced(await run(adapter, style, 50));
  });
});

it('without pacing, the same 1,000 requests are mostly denied (the test can tell)', async () => {
  const time = new VirtualTime(EPOCH + 123);
  const server = await startServer({ adapter: 'express', headers: 'draft-8', clock: time.clock });
  const statuses = await Promise.all(
    Array.from({ length: 1000 }, async () => (await server.fetch(server.url)).status),
  );
  expect(statuses.filter((s) => s === 429)).toHaveLength(990);
});
