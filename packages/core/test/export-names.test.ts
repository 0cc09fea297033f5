import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeExportNames, entryOf } from '@sluice/test-kit';

// @sluice/core for application authors, /protocol for front-door authors (GraphQL, ws,
// tRPC, AI), /http for HTTP adapter authors, /store for store and algorithm authors,
// /duration and /shared for @sluice/client: each entry's names are a reviewed list
// (test/exports/*.txt).
describeExportNames({
  '@sluice/core': entryOf('core', 'index.ts', 'index'),
  '@sluice/core/protocol': entryOf('core', 'protocol-api.ts', 'protocol'),
  '@sluice/core/store': entryOf('core', 'store-api.ts', 'store'),
  '@sluice/core/http': entryOf('core', 'http/index.ts', 'http'),
  '@sluice/core/duration': entryOf('core', 'duration-api.ts', 'duration'),
  '@sluice/core/shared': entryOf('core', 'shared-api.ts', 'shared'),
});

// The surfaces by audience, read from the reviewed lists (each held to its entry above and
// by each package's own export-names test): the root stays small, and every adapter
// re-exports the root, whole, plus its own names, never a name of another audience.
const PACKAGES = join(__dirname, '..', '..');
const list = (pkg: string, name = 'index'): string[] =>
  readFileSync(join(PACKAGES, pkg, 'test', 'exports', `${name}.txt`), 'utf8')
    .trim()
    .split('\n');
const byName = (a: string, b: string): number =>
  a.slice(a.indexOf(' ') + 1).localeCompare(b.slice(b.indexOf(' ') + 1));

/** The names an adapter's src/index.ts exports explicitly (`export { a, type B as C } …`). */
function ownNames(pkg: string): Set<string> {
  const source = readFileSync(join(PACKAGES, pkg, 'src', 'index.ts'), 'utf8');
  const names = new Set<string>();
  for (const [, body] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const spec of (body ?? '').split(',')) {
      const name = spec
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  }
  return names;
}

const ADAPTERS = ['express', 'fastify', 'koa', 'nestjs', 'hono', 'fetch', 'graphql', 'ws', 'trpc'];

describe('surfaces by audience', () => {
  const root = list('core');

  it('@sluice/core, the application author entry, exports at most 60 names', () => {
    expect(root.length).toBeLessThanOrEqual(60);
  });

  it.each(ADAPTERS)('@sluice/%s exports the core root plus its own names', (pkg) => {
    const source = readFileSync(join(PACKAGES, pkg, 'src', 'index.ts'), 'utf8');
    expect(source).toContain("export * from '@sluice/core';");
    const own = ownNames(pkg);
    const names = new Set(root.map((line) => line.slice(line.indexOf(' ') + 1)));
    const expected = [
      ...root.filter((line) => !own.has(line.slice(line.indexOf(' ') + 1))),
      ...list(pkg).filter((line) => own.has(line.slice(line.indexOf(' ') + 1))),
    ].sort(byName);
    expect(list(pkg)).toEqual(expected);
    // Own names come from the package itself: never a front-door, store or HTTP-plumbing
    // name of the core re-exported past the root (an adapter may shadow a root name, as
    // @sluice/nestjs's SkipThrottle does).
    const otherAudiences = ['protocol', 'store']
      .flatMap((entry) => list('core', entry))
      .map((line) => line.slice(line.indexOf(' ') + 1))
      .filter((name) => !names.has(name));
    expect([...own].filter((name) => otherAudiences.includes(name))).toEqual([]);
  });
});
