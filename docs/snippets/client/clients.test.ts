import path from 'node:path';
import { DOCS, run, TSX } from '../../test/paths.js';

// The client page's recipes, run as the page shows them (under tsx: ky is ESM only) against
// a sluice server: 30 requests at once through plain fetch, ky and axios, none denied.
it('plain fetch, ky and axios through pacedFetch get no 429', async () => {
  const { code, out } = await run(TSX, [path.join(DOCS, 'snippets', 'client', 'check-clients.ts')]);
  expect(code).toBe(0);
  const lines = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { name: string; statuses: number[]; denied: number });
  expect(lines).toEqual([
    { name: 'fetch', statuses: [200], denied: 0 },
    { name: 'ky', statuses: [200], denied: 0 },
    { name: 'axios', statuses: [200], denied: 0 },
  ]);
}, 120_000);
