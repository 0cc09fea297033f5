import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Every published @sluice package on one version line: one changesets `fixed` group holds
// them all, their versions are equal, and a package's @sluice dependencies are caret
// ranges of the workspace (`workspace:^`, packed as `^<that version>`), so what npm
// installs together is one release.
const ROOT = path.join(__dirname, '..', '..');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifests: Manifest[] = readdirSync(path.join(ROOT, 'packages')).flatMap((dir) => {
  try {
    return [JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8'))];
  } catch {
    return [];
  }
});
const published = manifests.filter((m) => !m.private);

describe('one version line for every published package', () => {
  it('the changesets fixed group is every published package', () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, '.changeset', 'config.json'), 'utf8'));
    expect(config.fixed).toHaveLength(1);
    expect([...config.fixed[0]].sort()).toEqual(published.map((m) => m.name).sort());
  });

  it('every published package has the same version', () => {
    expect(new Set(published.map((m) => m.version)).size).toBe(1);
  });

  it('a published package depends on another with workspace:^', () => {
    const ranges = published.flatMap((m) =>
      Object.entries({ ...m.dependencies, ...m.peerDependencies })
        .filter(([dep]) => dep.startsWith('@sluice/'))
        .map(([dep, range]) => `${m.name} -> ${dep}: ${range}`),
    );
    expect(ranges.length).toBeGreaterThan(0);
    expect(ranges.filter((r) => !r.endsWith(': workspace:^'))).toEqual([]);
  });
});
