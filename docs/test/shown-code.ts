/**
 * The code a reader sees on a page: each fenced ts/js block, and each `<<< @/snippets/…`
 * include as VitePress shows it (a `#region` alone, its marker lines dropped, dedented).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './markdown.js';
import { DOCS } from './paths.js';

/** One block of code as shown, with where it is. */
export interface ShownBlock {
  /** The page, from the repository root, and the 1-based line the block starts on. */
  page: string;
  line: number;
  /** `page:line`, and `#region`/file for an include: what a failure names. */
  where: string;
  code: string;
  /** What names it when lines move: the page and the include (`snippets/x.ts#region`) or its first line. */
  key: string;
  /** An included block's folder under docs/snippets (`stores`), where its relative imports start. */
  dir?: string;
  /** The block says it continues the one before it on its page (`<!-- continues -->`). */
  continues: boolean;
}

const LANGS = new Set(['ts', 'js', 'typescript', 'javascript', 'mts', 'mjs']);
/** VitePress's marker lines for TypeScript and JavaScript (its snippet plugin's first rule). */
const MARKER = /^\/\/ ?#?((?:end)?region) ([\w*-]+)$/;

/** The lines of `text` VitePress shows for `region`, dedented, or the whole file. */
export function regionText(text: string, region: string | undefined): string {
  if (region === undefined) return text;
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((l) => MARKER.exec(l.trim())?.[2] === region);
  const end = lines.findIndex(
    (l, i) => i > start && /^end/i.test(MARKER.exec(l.trim())?.[1] ?? '') && l.includes(region),
  );
  if (start < 0 || end < 0) throw new Error(`no #region ${region}`);
  const shown = lines.slice(start + 1, end).filter((l) => !MARKER.test(l.trim()));
  const indent = Math.min(
    ...shown.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length),
  );
  return shown.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

/** Every ts/js block `file` (from the root) shows, in order. */
export function shownBlocks(file: string): ShownBlock[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const out: ShownBlock[] = [];
  const continues = (i: number) => {
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    return j >= 0 && lines[j]!.trim() === '<!-- continues -->';
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const include = /^<<< @\/(\S+?)(?:#(\S+))?$/.exec(line);
    if (include) {
      const [, src, region] = include;
      if (!/\.(ts|js|mts|mjs)$/.test(src!)) continue;
      const code = regionText(readFileSync(path.join(DOCS, src!), 'utf8'), region);
      const where = `${file}:${i + 1} (${src}${region ? `#${region}` : ''})`;
      const dir = path.dirname(path.relative(path.join(DOCS, 'snippets'), path.join(DOCS, src!)));
      const key = `${file} ${src}${region ? `#${region}` : ''}`;
      out.push({ page: file, line: i + 1, where, code, key, dir, continues: continues(i) });
      continue;
    }
    const fence = /^(\s*)(`{3,})(\w+)?/.exec(line);
    if (!fence) continue;
    const close = lines.findIndex(
      (l, j) =>
        j > i &&
        l.trim().startsWith(fence[2]!) &&
        l.trim() === l.trim()[0]!.repeat(l.trim().length),
    );
    const end = close < 0 ? lines.length : close;
    if (LANGS.has(fence[3] ?? '')) {
      const code = lines
        .slice(i + 1, end)
        .map((l) => l.slice(fence[1]!.length))
        .join('\n');
      const key = `${file}: ${code.trim().split('\n')[0]}`;
      out.push({
        page: file,
        line: i + 1,
        where: `${file}:${i + 1}`,
        code,
        key,
        continues: continues(i),
      });
    }
    i = end;
  }
  // Two blocks of one page that start alike: the second is `… (2)`.
  const seen = new Map<string, number>();
  for (const b of out) {
    const n = (seen.get(b.key) ?? 0) + 1;
    seen.set(b.key, n);
    if (n > 1) b.key += ` (${n})`;
  }
  return out;
}
