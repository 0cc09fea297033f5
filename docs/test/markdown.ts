/** Reading the documentation's markdown pages, for the tests that check what they say. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DOCS } from './paths.js';

export const ROOT = path.resolve(DOCS, '..');

/** A markdown file, by its path from the repository root. */
export interface Page {
  file: string;
  text: string;
}

/**
 * Every page of the site (docs/**\/*.md but the contributors' note and what is generated),
 * plus the READMEs, which say the same things to npm's readers.
 */
export function pages(): Page[] {
  const site = readdirSync(DOCS, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.join(e.parentPath, e.name))
    .filter(
      (f) =>
        !f.includes('node_modules') &&
        !f.includes(`${path.sep}.vitepress${path.sep}`) &&
        !f.includes(`${path.sep}reference${path.sep}api${path.sep}`) &&
        f !== path.join(DOCS, 'README.md'),
    );
  const readmes = [
    path.join(ROOT, 'README.md'),
    ...readdirSync(path.join(ROOT, 'packages')).map((p) =>
      path.join(ROOT, 'packages', p, 'README.md'),
    ),
  ].filter((f) => {
    try {
      readFileSync(f);
      return true;
    } catch {
      return false;
    }
  });
  return [...site, ...readmes].sort().map((f) => ({
    file: path.relative(ROOT, f),
    text: readFileSync(f, 'utf8'),
  }));
}

/** The page's lines outside fenced code blocks, each with its 1-based line number. */
export function proseLines(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (open) {
      if (fence === undefined) fence = open[1]![0]!;
      else if (open[1]![0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined) out.push({ line, n: i + 1 });
  });
  return out;
}

/** The cells of a markdown table row (`| a | b |`), trimmed; `undefined` for another line. */
export function cells(line: string): string[] | undefined {
  if (!line.startsWith('|')) return undefined;
  // An escaped pipe (`a \| b`) is part of a cell.
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.replace(/\\\|/g, '|').trim());
}

/** The text of each `` `code span` `` in `text`, in order. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}
