// ARCHITECTURE.md is the map a newcomer opens first: every path it names must exist, so a
// move that forgets the map fails here. Two kinds of names are checked:
// - each code span that names a path (`packages/core/src/http/verdict/denial.ts`, or a
//   shorter tail such as `limiter/plan.ts`, which some tracked file's path must end with);
// - each file and subfolder listed under a folder in the "Folders" block, exactly there.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { codeSpans, ROOT } from './markdown.js';

const MAP = path.join(ROOT, 'ARCHITECTURE.md');

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

describe('ARCHITECTURE.md', () => {
  const text = readFileSync(MAP, 'utf8');
  const tracked = trackedPaths();
  const exists = (p: string) => tracked.has(p) || PENDING.includes(p);

  it('every path it names in code spans exists (a tail names some tracked path)', () => {
    const prose = text.replace(/```[\s\S]*?```/g, '');
    const spans = [...new Set(codeSpans(prose).filter(isPathSpan))];
    expect(spans.length).toBeGreaterThan(30);
    const all = [...tracked];
    const missing = spans.filter(
      (span) => !exists(span) && !all.some((p) => p.endsWith(`/${span}`)),
    );
    expect(missing).toEqual([]);
  });

  it('every file and subfolder of the Folders block is in its folder', () => {
    const listing = folderListing(text);
    expect(listing.length).toBeGreaterThan(15);
    const missing: string[] = [];
    for (const { folder, names } of listing) {
      if (!exists(folder)) missing.push(folder);
      for (const name of names) if (!exists(folder + name)) missing.push(folder + name);
    }
    expect(missing).toEqual([]);
  });

  it('names no pending path that already exists (drop it from PENDING once merged)', () => {
    expect(PENDING.filter((p) => tracked.has(p))).toEqual([]);
  });
});
