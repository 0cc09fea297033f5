import { createRequire } from 'node:module';
import { Redis } from 'ioredis';

// The Redis suite runs on ioredis 6, and again on ioredis 5 with SLUICE_IOREDIS=5 (see
// jest.config.ts): this test names the version it ran on, so the CI log shows both runs.
it(`runs on ioredis ${process.env.SLUICE_IOREDIS === '5' ? 5 : 6}`, () => {
  const want = process.env.SLUICE_IOREDIS === '5' ? '5.' : '6.';
  const name = process.env.SLUICE_IOREDIS === '5' ? 'ioredis5' : 'ioredis';
  const { version } = createRequire(__filename)(`${name}/package.json`) as { version: string };
  expect(version.startsWith(want)).toBe(true);
  // The class the tests import is that package's.
  expect(Redis).toBe((createRequire(__filename)(name) as { Redis: unknown }).Redis);
});
