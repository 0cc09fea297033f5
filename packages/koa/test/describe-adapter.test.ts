// describeAdapter (packages/test-kit/src/http-adapter.ts) collected against a recording
// `describe` / `it`: which rows it registers, which as skipped and with what title, and
// that a skip naming no row fails. The fake harness is never started.
import { type AdapterHarness, describeAdapter } from '@sluice/test-kit';

const harness: AdapterHarness = {
  name: 'koa',
  start: () => Promise.reject(new Error('not started: collection only')),
  startOutOfReach: () => Promise.reject(new Error('not started: collection only')),
};

const ROW = 'warns once when the framework trusts every proxy hop (a client picks its IP)';

/** Runs `fn` with `describe` and `it` recording titles instead of registering tests. */
function collect(fn: () => void): { ran: string[]; skipped: string[] } {
  const ran: string[] = [];
  const skipped: string[] = [];
  const g = globalThis as unknown as Record<'describe' | 'it', unknown>;
  const saved = { describe: g.describe, it: g.it };
  const it = (title: string) => void ran.push(title);
  it.skip = (title: string) => void skipped.push(title);
  g.describe = (_title: string, body: () => void) => body();
  g.it = it;
  try {
    fn();
  } finally {
    g.describe = saved.describe;
    g.it = saved.it;
  }
  return { ran, skipped };
}

it('registers every row of every table, and a skipped row as skipped with its reason', () => {
  const all = collect(() => describeAdapter(harness));
  expect(all.skipped).toEqual([]);
  expect(all.ran.length).toBeGreaterThan(50);
  expect(all.ran).toContain(ROW);
  const some = collect(() => describeAdapter(harness, { skip: { [ROW]: 'a stated reason' } }));
  expect(some.skipped).toEqual([`${ROW} [skipped on koa: a stated reason]`]);
  expect(some.ran).toEqual(all.ran.filter((title) => title !== ROW));
});

it('a skip naming no row fails collection, with its title', () => {
  expect(() =>
    collect(() => describeAdapter(harness, { skip: { 'a row that does not exist': 'why' } })),
  ).toThrow('describeAdapter(koa): skip names no row: "a row that does not exist"');
});
