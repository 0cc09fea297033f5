// Every snippet the pages include is a real file under docs/snippets: it type-checks
// (docs/tsconfig.json, the packages' sources), every include points at one that exists,
// and the getting-started apps run: 5 quick POST /login pass, the 6th gets a 429.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { DOCS, startApp, stop } from './paths.js';

jest.setTimeout(120_000);

function files(dir: string, ext: string): string[] {
  return (
    readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith(ext))
      .map((e) => path.join(e.parentPath, e.name))
      .filter((f) => !f.includes('node_modules') && !f.includes(`${path.sep}.vitepress${path.sep}`))
      // What shown-snippets.test.ts writes while it runs a page's block.
      .filter((f) => !path.basename(f).startsWith('shown-block-'))
  );
}

describe('docs snippets', () => {
  it('type-check', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(DOCS, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(d.messageText) },
    )!;
    const snippets = files(path.join(DOCS, 'snippets'), '.ts');
    expect(snippets.length).toBeGreaterThan(10);
    const program = ts.createProgram(snippets, config.options);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${path.relative(DOCS, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(diagnostics).toEqual([]);
  });

  it('every page includes snippets (and regions) that exist', () => {
    const pages = files(DOCS, '.md');
    let includes = 0;
    for (const page of pages) {
      for (const m of readFileSync(page, 'utf8').matchAll(/^<<< @\/(\S+?)(?:#(\S+))?$/gm)) {
        includes++;
        const file = path.join(DOCS, m[1]!);
        const text = readFileSync(file, 'utf8');
        if (m[2] !== undefined) expect(text).toContain(`// #region ${m[2]}\n`);
      }
    }
    expect(includes).toBeGreaterThan(10);
  });
});

describe.each(['express', 'fastify', 'koa', 'hono', 'fetch'])(
  'getting started with %s',
  (framework) => {
    it('runs, admits 5 quick POST /login and answers the 6th with a 429', async () => {
      const { child, base, output } = await startApp(`snippets/${framework}/app.ts`);
      try {
        const home = await fetch(`${base}/`);
        expect(home.status).toBe(200);
        expect(home.headers.get('x-ratelimit-limit')).toBe('60');
        const statuses: number[] = [];
        let last: Response | undefined;
        for (let i = 0; i < 6; i++) {
          last = await fetch(`${base}/login`, { method: 'POST' });
          statuses.push(last.status);
        }
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
        expect(last!.headers.get('retry-after')).toBe('12');
        expect(last!.headers.get('x-ratelimit-limit')).toBe('5');
        expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(await last!.json()).toEqual({
          statusCode: 429,
          error: 'Too Many Requests',
          message: 'Rate limit exceeded, retry in 12 seconds',
        });
        expect(output()).toContain(`listening on ${base}`);
      } finally {
        await stop(child);
      }
    });
  },
);
