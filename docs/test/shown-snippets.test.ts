// The code on the guide pages, the home page and the README, exactly as a reader sees it
// (a `#region` of a snippet alone, an inline block alone), type-checks on its own: it shows
// its imports, so a copy of it compiles. A block may build on the one before it on its page
// when the page says so (`<!-- continues -->` above it); it is then checked after that one.
// The blocks that need no server, database or network also run, as shown, under tsx.

import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from './markdown.js';
import { DOCS, run, startApp, stop, TSX } from './paths.js';
import { type ShownBlock, shownBlocks } from './shown-code.js';

jest.setTimeout(120_000);

/** The pages checked: the guides, the home page and the README. */
function checkedPages(): string[] {
  const guides = readdirSync(path.join(DOCS, 'guide'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
  return [...guides, 'docs/index.md', 'README.md'].sort();
}

/** Each block with the code it is checked as (a continuation after the block it continues). */
function checkedBlocks(): { block: ShownBlock; code: string }[] {
  return checkedPages().flatMap((page) => {
    const blocks = shownBlocks(page);
    const out: { block: ShownBlock; code: string }[] = [];
    blocks.forEach((block, i) => {
      const before = block.continues && i > 0 ? `${out[i - 1]!.code}\n` : '';
      out.push({ block, code: before + block.code });
    });
    return out;
  });
}

/**
 * The blocks that run as shown (no server, database or network), by `page:line`'s page and
 * the block's first line of code: each must exit 0.
 */
const RUNS: [page: string, firstLine: RegExp][] = [
  ['docs/guide/rate-limiter.md', /^import \{ gcra, MemoryStore, RateLimiter/],
  ['docs/guide/testing.md', /^\/\/ The core with an injected clock/],
];

/** The README's server apps, by their first line: each listens on PORT and limits POST /login. */
const README_APPS: [name: string, firstLine: RegExp][] = [
  ['Express', /from '@sluice\/express'/],
  ['Fastify', /from '@sluice\/fastify'/],
  ['Koa', /^import Router from '@koa\/router'/],
  ['NestJS', /^import 'reflect-metadata'/],
  ['Hono', /^import \{ serve \} from '@hono\/node-server'/],
];

/**
 * Blocks still shown without what they need (their imports, or the app they extend), each to
 * be made whole: a listed block that compiles fails the test, so the list only shrinks.
 */
const NOT_YET_WHOLE = new Set<string>([]);

const BLOCKS = checkedBlocks();
/**
 * Where each block is compiled and run from: an inline block in snippets/, an included one
 * beside its file (its relative imports resolve as the file's do).
 */
const fileOf = (i: number) =>
  path.join(DOCS, 'snippets', BLOCKS[i]!.block.dir ?? '', `shown-block-${i}.ts`);

describe('the code the pages show', () => {
  it('finds the blocks of every page that shows code', () => {
    expect(BLOCKS.length).toBeGreaterThan(40);
    const pages = new Set(BLOCKS.map((b) => b.block.page));
    for (const p of ['README.md', 'docs/guide/postgres.md', 'docs/guide/sqlite.md'])
      expect(pages).toContain(p);
  });

  it('type-checks, each block on its own (a continuation after the block it continues)', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(DOCS, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(d.messageText) },
    )!;
    // `export {}`: each block is a module of its own, even one with no import.
    const virtual = new Map(BLOCKS.map((b, i) => [fileOf(i), `${b.code}\nexport {};\n`]));
    const host = ts.createCompilerHost(config.options);
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
    host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
    host.getSourceFile = (f, lang, ...rest) => {
      const text = virtual.get(f);
      return text === undefined
        ? getSourceFile.call(host, f, lang, ...rest)
        : ts.createSourceFile(f, text, lang, true);
    };
    // The ambient declarations the snippets rely on (snippets/cloudflare/env.d.ts: `cloudflare:workers`).
    const ambient = readdirSync(path.join(DOCS, 'snippets'), {
      withFileTypes: true,
      recursive: true,
    })
      .filter((e) => e.isFile() && e.name.endsWith('.d.ts'))
      .map((e) => path.join(e.parentPath, e.name));
    const program = ts.createProgram([...virtual.keys(), ...ambient], config.options, host);
    const files = [...virtual.keys()];
    const failing = new Map<number, string[]>();
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const i = d.file === undefined ? -1 : files.indexOf(d.file.fileName);
      if (i < 0) continue;
      const at = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
      const said = `line ${at} of the block: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      failing.set(i, [...(failing.get(i) ?? []), said]);
    }
    const wrong = [...failing]
      .filter(([i]) => !NOT_YET_WHOLE.has(BLOCKS[i]!.block.key))
      .flatMap(([i, said]) => said.map((s) => `${BLOCKS[i]!.block.where}, ${s}`));
    const whole = BLOCKS.filter((b, i) => NOT_YET_WHOLE.has(b.block.key) && !failing.has(i)).map(
      (b) => `${b.block.key}: compiles now, drop it from NOT_YET_WHOLE`,
    );
    expect([...wrong, ...whole]).toEqual([]);
  });

  it('the blocks that need no server run as shown', async () => {
    const chosen = RUNS.map(([page, first]) => {
      const i = BLOCKS.findIndex(
        (b) => b.block.page === page && first.test(b.code.trimStart().split('\n')[0]!),
      );
      if (i < 0) throw new Error(`no block of ${page} starts with ${first}`);
      return i;
    });
    try {
      const failed: string[] = [];
      for (const i of chosen) {
        writeFileSync(fileOf(i), `${BLOCKS[i]!.code}\nexport {};\n`);
        const { code, out } = await run(TSX, [path.relative(DOCS, fileOf(i))]);
        if (code !== 0) failed.push(`${BLOCKS[i]!.block.where} exited with ${code}:\n${out}`);
      }
      expect(failed).toEqual([]);
    } finally {
      for (const i of chosen) rmSync(fileOf(i), { force: true });
    }
  });
});

describe.each(README_APPS)("the README's %s app", (_name, first) => {
  it('runs as shown: 60 a minute on every route, the 6th quick POST /login gets a 429', async () => {
    const i = BLOCKS.findIndex(
      (b) => b.block.page === 'README.md' && first.test(b.code.trimStart().split('\n')[0]!),
    );
    expect(i).toBeGreaterThanOrEqual(0);
    const file = fileOf(i);
    writeFileSync(file, `${BLOCKS[i]!.code}\nexport {};\n`);
    try {
      const { child, base } = await startApp(path.relative(DOCS, file));
      try {
        const home = await fetch(`${base}/`);
        expect(home.status).toBe(200);
        expect(home.headers.get('x-ratelimit-limit')).toBe('60');
        // 2xx: Nest answers a POST 201.
        const statuses: (number | '2xx')[] = [];
        for (let n = 0; n < 6; n++) {
          const status = (await fetch(`${base}/login`, { method: 'POST' })).status;
          statuses.push(status >= 200 && status < 300 ? '2xx' : status);
        }
        expect(statuses).toEqual(['2xx', '2xx', '2xx', '2xx', '2xx', 429]);
      } finally {
        await stop(child);
      }
    } finally {
      rmSync(file, { force: true });
    }
  });
});
