// ARCHITECTURE.md is the map a newcomer opens first, docs/guide/source-tree.md its long half:
// every path they name must exist, so a move that forgets the map fails here. Two kinds of
// names are checked:
// - each code span that names a path (`packages/core/src/http/verdict/denial.ts`, or a
//   shorter tail such as `limiter/plan.ts`, which some tracked file's path must end with);
// - each file and subfolder listed under a folder in the page's "Folders" block, exactly there.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { codeSpans, ROOT } from './markdown.js';

const MAP = path.join(ROOT, 'ARCHITECTURE.md');
const TREE = path.join(ROOT, 'docs', 'guide', 'source-tree.md');

/**
 * Paths the map names ahead of a branch that creates them (issue 31: the prefetch layer
 * moves into its own folder). Each must not exist yet: once it does, the test says to drop
 * it from this list, so an entry cannot outlive its reason.
 */
const PENDING: readonly string[] = [];

/** Every tracked file, and every folder above one, relative to the root (`a/b/`). */
function trackedPaths(): Set<string> {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f !== '' && existsSync(path.join(ROOT, f)));
  const out = new Set<string>();
  for (const file of files) {
    out.add(file);
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) out.add(`${parts.slice(0, i).join('/')}/`);
  }
  return out;
}

const PATH_LIKE = /^[\w.-]+(\/[\w.-]+)*\/?$/;
const FILE_LIKE = /\.(ts|md|txt|lua|json)$/;

/** A code span that names a path: a file with a known extension, or a folder with a `/`. */
function isPathSpan(span: string): boolean {
  if (!PATH_LIKE.test(span)) return false;
  return FILE_LIKE.test(span) || (span.includes('/') && span.endsWith('/'));
}

/** The "Folders" block: each folder with the names listed after it (its lines and the next). */
function folderListing(text: string): { folder: string; names: string[] }[] {
  const start = text.indexOf('## Folders');
  const open = text.indexOf('```', start);
  const close = text.indexOf('```', open + 3);
  const out: { folder: string; names: string[] }[] = [];
  for (const line of text.slice(open + 3, close).split('\n')) {
    if (line.trim() === '') continue;
    const tokens = line
      .trim()
      .split(/\s+/)
      .map((t) => t.replace(/^[(+]+|[),;.]+$/g, ''));
    if (!line.startsWith(' ')) out.push({ folder: tokens.shift()!, names: [] });
    const entry = out.at(-1)!;
    for (const t of tokens) {
      if (t.includes('@') || t.includes(':') || t.includes('*')) continue;
      if (/^[\w.-]+(\/[\w.-]+)*\.(ts|lua)$/.test(t) || /^[\w-]+\/$/.test(t)) entry.names.push(t);
    }
  }
  return out;
}

describe('ARCHITECTURE.md and the source tree page', () => {
  const map = readFileSync(MAP, 'utf8');
  const tree = readFileSync(TREE, 'utf8');
  const tracked = trackedPaths();
  const exists = (p: string) => tracked.has(p) || PENDING.includes(p);

  it('the map is short: at most 250 lines (the folder by folder detail is the page)', () => {
    expect(map.split('\n').length).toBeLessThanOrEqual(250);
  });

  it.each([
    ['ARCHITECTURE.md', map],
    ['docs/guide/source-tree.md', tree],
  ])('every path %s names in code spans exists (a tail names some tracked path)', (_, text) => {
    const prose = text.replace(/```[\s\S]*?```/g, '');
    const spans = [...new Set(codeSpans(prose).filter(isPathSpan))];
    expect(spans.length).toBeGreaterThan(10);
    const all = [...tracked];
    const missing = spans.filter(
      (span) => !exists(span) && !all.some((p) => p.endsWith(`/${span}`)),
    );
    expect(missing).toEqual([]);
  });

  it('every file and subfolder of the Folders block is in its folder', () => {
    const listing = folderListing(tree);
    expect(listing.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const { folder, names } of listing) {
      if (!exists(folder)) missing.push(folder);
      for (const name of names) if (!exists(folder + name)) missing.push(folder + name);
    }
    expect(missing).toEqual([]);
  });

  it("every file of the map's floors block exists in the core", () => {
    const start = map.indexOf('## Layers');
    const open = map.indexOf('```', start);
    const block = map.slice(open + 3, map.indexOf('```', open + 3));
    const names = [...block.matchAll(/[\w-]+(?:\/[\w.-]+)*\.ts|[\w-]+\/(?=[\s,(:])/g)].map(
      (m) => m[0],
    );
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !exists(`packages/core/src/${n}`))).toEqual([]);
  });

  it('names no pending path that already exists (drop it from PENDING once merged)', () => {
    expect(PENDING.filter((p) => tracked.has(p))).toEqual([]);
  });
});
