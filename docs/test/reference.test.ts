// The options reference is generated from the TSDoc (docs/scripts/reference.ts): every
// public export, option and member must carry a doc comment, or the reference has a hole.
// TypeDoc is ESM-only, so it runs in a child process.
import { run, TSX } from './paths.js';

jest.setTimeout(120_000);

it('every public export, option and member of the packages has TSDoc', async () => {
  const { code, out } = await run(TSX, ['scripts/reference.ts', '--check']);
  const line = out.split('\n').find((l) => l.startsWith('{"undocumented"'));
  if (line === undefined) throw new Error(`reference.ts --check printed no result:\n${out}`);
  const { undocumented } = JSON.parse(line) as { undocumented: string[] };
  expect(undocumented).toEqual([]);
  expect(code).toBe(0);
});
