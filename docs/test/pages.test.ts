// The pages say what the product does: no shipped feature described as coming, every
// documented default of the middleware options the one the code applies, the options table
// complete, and no markdown slip that renders as something else (a wrapped `>= 0` as a
// blockquote, region markers in a whole-file example).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Limit, MemoryStore, RateLimiter } from '@sluice/core';
import { HttpLimiter, type HttpVerdict } from '@sluice/core/http';
import ts from 'typescript';
// The option parser and the defaults it applies, read where they are defined.
import {
  HTTP_OPTION_NAMES,
  parseHttpOptions,
} from '../../packages/core/src/http/options/parse-options.js';
import { DEFAULT_COOLDOWN_MS } from '../../packages/core/src/store-failure/circuit-breaker.js';
import { DEFAULT_OVER_LIMIT_KEYS } from '../../packages/core/src/store-failure/over-limit-cache.js';
import { cells, codeSpans, pages, proseLines, ROOT } from './markdown.js';
import { DOCS } from './paths.js';

const PAGES = pages();
const OPTIONS_FILE = path.join(ROOT, 'packages', 'core', 'src', 'http', 'options', 'options.ts');

/** Each `HttpLimitOptions` member's `@default` text (TSDoc), or `undefined` when it has none. */
function tsdocDefaults(): Map<string, string | undefined> {
  const source = ts.createSourceFile(
    OPTIONS_FILE,
    readFileSync(OPTIONS_FILE, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const out = new Map<string, string | undefined>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== 'HttpLimitOptions') return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member)) continue;
      const tag = ts.getJSDocTags(member).find((t) => t.tagName.text === 'default');
      const text = tag === undefined ? undefined : ts.getTextOfJSDocComment(tag.comment);
      out.set(member.name.getText(source), text?.replace(/\s+/g, ' ').trim());
    }
  });
  return out;
}

/**
 * The value a `@default` names when it is a literal (`'sl'`, `64`, `{ cooldownMs: 1000 }`,
 * `Date.now`), what comes before a parenthesised remark; `undefined` for prose ("the
 * application's own `MemoryStore`").
 */
function literal(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const value = text.replace(/ \(.*$/, '').trim();
  return /^('[^']*'|\{[^}]*\}|-?[\d_.]+|true|false|[A-Za-z_$][\w$]*(\.[\w$]+)*)$/.test(value)
    ? value
    : undefined;
}

const DEFAULTS = tsdocDefaults();
/** Option name -> the literal its TSDoc names as default (only the literal ones). */
const LITERAL_DEFAULTS = new Map(
  [...DEFAULTS].flatMap(([name, text]) => {
    const value = literal(text);
    return value === undefined ? [] : [[name, value] as const];
  }),
);

/** A request as the core sees it; a new one each call (the same `raw` is the same request). */
const view = () => ({ method: 'GET', route: 'GET /', ip: '203.0.113.7', headers: {}, raw: {} });

const evaluate = (code: string): unknown => new Function(`return (${code});`)();

/** A parsed config as JSON, a function by its name (a closure made per parse is not the same object). */
const comparable = (config: object): unknown =>
  JSON.parse(
    JSON.stringify(config, (_k, v: unknown) =>
      typeof v === 'function' ? `function ${v.name}` : v === undefined ? 'undefined' : v,
    ),
  );

/** A default as said, to compare: no quotes, no digit separators, no spaces. */
const normal = (said: string): string => said.replace(/['_, ]/g, '');

describe('the middleware options and their defaults', () => {
  it('the TSDoc @default of every option is what the code applies when it is left out', () => {
    expect(LITERAL_DEFAULTS.get('prefix')).toBe("'sl'");
    const omitted = parseHttpOptions({});
    for (const [name, value] of LITERAL_DEFAULTS) {
      const given = evaluate(value);
      if (name === 'breaker') {
        expect(given).toEqual({ cooldownMs: DEFAULT_COOLDOWN_MS });
      } else if (name === 'overLimitCache') {
        expect(given).toEqual({ maxKeys: DEFAULT_OVER_LIMIT_KEYS });
      } else if (name === 'message') {
        // The default message is written into the 429 body, with N its Retry-After.
        const limiter = new HttpLimiter({ limit: '1/min', store: new MemoryStore() });
        limiter.check(view());
        const denied = limiter.check(view()) as HttpVerdict;
        expect(denied.allowed).toBe(false);
        const body = typeof denied.body === 'string' ? JSON.parse(denied.body) : denied.body;
        expect((body as { message: string }).message).toBe(
          (given as string).replace('N', String(denied.retryAfterSeconds)),
        );
      } else if (name !== 'logger') {
        // Passing the documented default changes nothing (`logger` only reaches a store
        // that can fail, which an options object without `store` does not build).
        const explicit = parseHttpOptions({ [name]: given } as never);
        expect({ name, config: comparable(explicit) }).toEqual({
          name,
          config: comparable(omitted),
        });
      }
    }
    expect(LITERAL_DEFAULTS.size).toBeGreaterThanOrEqual(15);
  });

  it('the reference lists every option, each with the default the TSDoc gives', () => {
    const page = readFileSync(path.join(DOCS, 'reference', 'index.md'), 'utf8');
    const at = page.indexOf('## The middleware options at a glance');
    expect(at).toBeGreaterThan(0);
    const rows = page
      .slice(at)
      .split('\n')
      .map(cells)
      .filter((c): c is string[] => c !== undefined && !/^-+$/.test(c[0]!) && c[0] !== 'option');
    const table = new Map(rows.map((c) => [codeSpans(c[0]!)[0]!, c[1]!]));
    expect([...table.keys()].sort()).toEqual([...HTTP_OPTION_NAMES].sort());
    for (const [name, value] of LITERAL_DEFAULTS) {
      expect({ name, default: codeSpans(table.get(name)!)[0] }).toEqual({ name, default: value });
    }
  });

  it('every page that gives a default of an option gives the one the code applies', () => {
    const wrong: string[] = [];
    const names = [...LITERAL_DEFAULTS.keys()];
    for (const { file, text } of PAGES) {
      for (const { line, n } of proseLines(text)) {
        // "`prefix` (default `'sl'`…", "option `prefix`, default `'sl'`", "`ipv6Subnet` (default 64)"
        for (const m of line.matchAll(/\bdefault(?: is|:)?\s+(`[^`]+`|\d[\d_, ]*\d|\d)/g)) {
          const before = codeSpans(line.slice(0, m.index)).filter((c) => names.includes(c));
          const name = before.at(-1);
          if (name === undefined) continue;
          const said = normal(m[1]!.replace(/^`|`$/g, ''));
          const literal = LITERAL_DEFAULTS.get(name)!;
          // A bare number for an object default (`{ maxKeys: 10_000 }`, "default 10 000
          // keys") is the number in it.
          const code =
            /^\d+$/.test(said) && literal.startsWith('{')
              ? normal(/[\d_]+/.exec(literal)![0])
              : normal(literal);
          if (said !== code)
            wrong.push(`${file}:${n}: ${name} default ${said}, the code's is ${literal}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

/** Words that describe a feature as coming rather than shipped. */
const NOT_YET =
  /not available yet|not yet (?:available|supported|implemented)|on (?:its|their) way|(?:is|are) being added|will be added|coming soon/i;

/**
 * The names sluice accepts: middleware options, and the `Limit` and `RateLimiter` methods
 * (`blockFor`, `concurrent`, `refund`…).
 */
const SLUICE_NAMES = new Set([
  ...HTTP_OPTION_NAMES,
  ...Object.getOwnPropertyNames(Limit),
  ...Object.getOwnPropertyNames(Limit.prototype),
  ...Object.getOwnPropertyNames(RateLimiter.prototype),
]);

describe('what the pages say ships', () => {
  it('no page describes a feature as coming: each says what ships', () => {
    const coming = PAGES.flatMap(({ file, text }) =>
      proseLines(text)
        .filter(({ line }) => NOT_YET.test(line))
        .map(({ line, n }) => `${file}:${n}: ${line.trim()}`),
    );
    expect(coming).toEqual([]);
  });

  it('no migration row maps an option sluice has to "none" or "not available"', () => {
    const wrong: string[] = [];
    for (const { file, text } of PAGES.filter((p) => p.file.startsWith('docs/migrating/'))) {
      for (const { line, n } of proseLines(text)) {
        const c = cells(line);
        if (c === undefined || c.length < 2) continue;
        if (!/^(none|not available|not supported|no equivalent)\b/i.test(c[1]!)) continue;
        const named = codeSpans(c[0]!)
          .map((s) => /^[\w$]+/.exec(s)?.[0])
          .filter((s) => s !== undefined && SLUICE_NAMES.has(s));
        if (named.length > 0) wrong.push(`${file}:${n}: ${named.join(', ')} mapped to "${c[1]}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the @fastify/rate-limit page says X-RateLimit-Reset turns from seconds-from-now into Unix seconds, as sluice sends it', () => {
    // sluice's X-RateLimit-Reset: the Unix time in seconds (rounded up) when the key is full.
    let now = Date.UTC(2030, 0, 1, 12, 0, 0, 500);
    const limiter = new HttpLimiter({
      limit: '5/min',
      store: new MemoryStore(),
      clock: () => now,
    });
    const verdict = limiter.check(view()) as HttpVerdict;
    const reset = Number(new Map(verdict.headers).get('X-RateLimit-Reset'));
    now += 1;
    expect(reset).toBe(Math.ceil((Date.UTC(2030, 0, 1, 12, 0, 0, 500) + 12_000) / 1000));

    // @fastify/rate-limit's x-ratelimit-reset is "how many seconds must pass before the rate
    // limit resets" (its README): the page must say the meaning changes.
    const page = readFileSync(path.join(DOCS, 'migrating', 'fastify-rate-limit.md'), 'utf8');
    const said = page
      .split(/\n\s*\n/)
      .filter((p) => p.includes('X-RateLimit-Reset') && !p.startsWith('|'))
      .join(' ')
      .replace(/\s+/g, ' ');
    expect(said).toMatch(/seconds from now/i);
    expect(said).toMatch(/Unix time in seconds/i);
  });
});

describe('markdown that renders as written', () => {
  it('no line starts a blockquote (a wrapped ">= 0" would): pages use ::: containers', () => {
    const quotes = PAGES.flatMap(({ file, text }) =>
      proseLines(text)
        .filter(({ line }) => /^\s{0,3}>/.test(line))
        .map(({ line, n }) => `${file}:${n}: ${line}`),
    );
    expect(quotes).toEqual([]);
  });

  it('a snippet included whole has no #region markers (they would show in the example)', () => {
    const shown: string[] = [];
    for (const { file, text } of PAGES) {
      for (const m of text.matchAll(/^<<< @\/(\S+?)$/gm)) {
        if (m[1]!.includes('#')) continue;
        const snippet = readFileSync(path.join(DOCS, m[1]!), 'utf8');
        if (/^\s*\/\/ #(?:end)?region\b/m.test(snippet)) shown.push(`${file}: ${m[1]}`);
      }
    }
    expect(shown).toEqual([]);
  });

  it('no page, bench output or published doc comment cites a design section or an issue number: it writes the rule', () => {
    // The reference is generated from the packages' TSDoc; the bench's pages from bench/.
    const sources = [
      ...['core', 'express', 'fastify', 'koa', 'redis', 'fetch', 'hono'].map(
        (p) => `packages/${p}/src`,
      ),
      'bench/src',
      'bench',
    ].flatMap((dir) =>
      readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: dir !== 'bench' })
        .filter((e) => e.isFile() && /\.(ts|md)$/.test(e.name))
        .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name))),
    );
    const texts = [
      ...PAGES,
      ...sources.map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') })),
    ];
    const cited = texts.flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ line, n: i + 1 }))
        .filter(({ line }) => /DESIGN\s*§|\bDESIGN\.md\b|\bissue #?\d+/i.test(line))
        .map(({ line, n }) => `${file}:${n}: ${line.slice(0, 120)}`),
    );
    expect(sources.length).toBeGreaterThan(20);
    expect(cited).toEqual([]);
  });
});

describe('no document outside the repository', () => {
  /** Every text file of the project, less what is installed, built or generated. */
  function projectFiles(dir: string): string[] {
    return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) {
        return /^(node_modules|dist|cache|\.git|\.packed|\.turbo|coverage)$/.test(e.name)
          ? []
          : projectFiles(rel);
      }
      return /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|yml|yaml|sql)$|^run$|^user-install$/.test(e.name)
        ? [rel]
        : [];
    });
  }

  it('no file names the design document the project started from: it cites its own pages', () => {
    // The guards that look for the name (here and in benchmarks.test.ts) name it themselves.
    const guards = new Set(['docs/test/pages.test.ts', 'docs/test/benchmarks.test.ts']);
    const files = [
      ...['packages', 'bench', 'docs', 'scripts', 'examples', '.changeset', '.ci'].flatMap(
        projectFiles,
      ),
      'ARCHITECTURE.md',
      'CONTRIBUTING.md',
      'README.md',
      'package.json',
    ].filter((f) => !guards.has(f) && !f.endsWith('pnpm-lock.yaml'));
    expect(files.length).toBeGreaterThan(500);
    const citing = files.filter((f) => /\bDESIGN\b/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(citing).toEqual([]);
  });
});

describe('the front pages', () => {
  /** Every package users install: the workspace's packages that are not private. */
  const published = readdirSync(path.join(ROOT, 'packages'))
    .map((dir) => path.join(ROOT, 'packages', dir, 'package.json'))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; private?: boolean })
    .filter((p) => p.private !== true)
    .map((p) => p.name);

  it.each(['docs/index.md', 'README.md'])('%s names every published package', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    expect(published.length).toBeGreaterThanOrEqual(15);
    expect(published.filter((name) => !text.includes(name))).toEqual([]);
  });

  it('the README is the front page: at most 200 lines, with the install and test lines', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(201);
    for (const line of [
      'pnpm install && pnpm pack:local',
      'pnpm install && pnpm demo',
      'pnpm install && pnpm test',
      'pnpm test:quick   # the inner loop: no Redis, PostgreSQL, browser or child process, under a minute',
    ])
      expect(readme).toContain(line);
  });
});
