// The built site in a real browser: builds docs/ (pnpm docs:build's steps), serves
// .vitepress/dist on 127.0.0.1, opens every page reachable from the home page in headless
// Chromium (Debian's, driven by playwright-core) and fails on a console error, a page error,
// a failed or 4xx/5xx request, a broken internal link or anchor, or an image that did not
// load. Screenshots of the home and algorithms pages go to docs/.test-output/screenshots/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { DOCS, run, TSX } from './paths.js';

jest.setTimeout(240_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = path.join(DOCS, '.vitepress', 'dist');
const OUTPUT = path.join(DOCS, '.test-output', 'screenshots');
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Pages the crawl must reach (the sidebar's), besides whatever they link to. */
const MUST_REACH = [
  '/',
  '/guide/express.html',
  '/guide/fastify.html',
  '/guide/koa.html',
  '/guide/concepts.html',
  '/guide/algorithms.html',
  '/guide/production.html',
  '/guide/testing.html',
  '/guide/features/',
  '/migrating/',
  '/migrating/express-rate-limit.html',
  '/migrating/laravel.html',
  '/reference/',
  '/reference/api/core.html',
  '/benchmarks.html',
];
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** What the crawl reads of a page's elements (`a`, `img`, anything with an id). */
interface PageElement {
  id: string;
  href?: string;
  src?: string;
  currentSrc?: string;
  complete?: boolean;
  naturalWidth?: number;
}

/** A static server for the built site, as a host would serve it (`/a/` -> `/a/index.html`). */
function serve(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let file = path.join(DIST, decodeURIComponent(url.pathname));
    if (!file.startsWith(DIST)) file = DIST;
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!existsSync(file) && existsSync(`${file}.html`)) file = `${file}.html`;
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, base: `http://127.0.0.1:${port}` });
    });
  });
}

describe('the documentation site in headless Chromium', () => {
  let server: Server | undefined;
  let userDataDir: string | undefined;

  afterAll(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it('builds, and every page loads with no console error, broken link or missing image', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `no Chromium at ${CHROMIUM}: apt-get install chromium (as .ci/run does), or set CHROMIUM_PATH`,
      );
    }
    const started = Date.now();
    const generate = await run(TSX, ['scripts/generate.ts']);
    expect(generate.code).toBe(0);
    const build = await run(path.join(DOCS, 'node_modules', '.bin', 'vitepress'), ['build']);
    if (build.code !== 0) throw new Error(`vitepress build failed:\n${build.out}`);
    const buildSeconds = (Date.now() - started) / 1000;

    const served = await serve();
    server = served.server;
    const { base } = served;
    userDataDir = mkdtempSync(path.join(os.tmpdir(), 'sluice-docs-chromium-'));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1280, height: 900 },
    });
    const problems: string[] = [];
    const ids = new Map<string, Set<string>>(); // page path -> element ids
    const anchors: { from: string; page: string; hash: string }[] = [];
    const aborted: { from: string; url: string }[] = [];
    const queue = ['/'];
    const seen = new Set(queue);
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      let current = '/';
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`${current}: console error: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`${current}: page error: ${e.message}`));
      page.on('requestfailed', (r) => {
        if (!r.url().startsWith(base)) return;
        // Leaving a page cancels the chunks VitePress prefetches for its links: those must
        // exist, checked below; any other failure is a problem.
        if (r.failure()?.errorText === 'net::ERR_ABORTED')
          aborted.push({ from: current, url: r.url() });
        else problems.push(`${current}: request failed: ${r.url()} (${r.failure()?.errorText})`);
      });
      page.on('response', (r) => {
        if (r.url().startsWith(base) && r.status() >= 400) {
          problems.push(`${current}: ${r.status()} for ${r.url()}`);
        }
      });
      while (queue.length > 0) {
        current = queue.shift()!;
        const response = await page.goto(base + current, { waitUntil: 'load' });
        if (response?.status() !== 200) {
          problems.push(`${current}: status ${response?.status()}`);
          continue;
        }
        await page.waitForLoadState('networkidle');
        const found = await page.evaluate(() => {
          // Runs in the page; the repository's tsconfig has no DOM types, hence this shape.
          const all = (selector: string) =>
            [
              ...(
                globalThis as unknown as {
                  document: { querySelectorAll(s: string): Iterable<PageElement> };
                }
              ).document.querySelectorAll(selector),
            ] as PageElement[];
          return {
            links: all('a[href]').map((a) => a.href!),
            images: all('img').map((img) => ({
              src: img.currentSrc || img.src!,
              ok: img.complete! && img.naturalWidth! > 0,
            })),
            ids: all('[id]').map((e) => e.id),
          };
        });
        ids.set(current, new Set(found.ids));
        for (const img of found.images) {
          if (!img.ok) problems.push(`${current}: image did not load: ${img.src}`);
        }
        for (const href of found.links) {
          const url = new URL(href);
          if (url.origin !== base) continue;
          const target = url.pathname;
          if (url.hash.length > 1) {
            anchors.push({
              from: current,
              page: target,
              hash: decodeURIComponent(url.hash.slice(1)),
            });
          }
          if (!seen.has(target)) {
            seen.add(target);
            queue.push(target);
          }
        }
        if (current === '/' || current === '/guide/algorithms.html') {
          mkdirSync(OUTPUT, { recursive: true });
          const name = current === '/' ? 'home' : 'algorithms';
          await page.screenshot({ path: path.join(OUTPUT, `${name}.png`), fullPage: true });
        }
      }
    } finally {
      await context.close();
    }
    for (const a of aborted) {
      const file = path.join(DIST, decodeURIComponent(new URL(a.url).pathname));
      if (!existsSync(file)) problems.push(`${a.from}: ${a.url} does not exist`);
    }
    for (const a of anchors) {
      const targetIds = ids.get(a.page);
      if (targetIds !== undefined && !targetIds.has(a.hash)) {
        problems.push(`${a.from}: link to ${a.page}#${a.hash}: no such anchor`);
      }
    }
    console.log(
      `docs site: built in ${buildSeconds.toFixed(0)} s; ${ids.size} pages opened in Chromium, ` +
        `${anchors.length} anchor links checked, in ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
    );
    expect(problems).toEqual([]);
    for (const p of MUST_REACH) expect([...ids.keys()]).toContain(p);
    expect(existsSync(path.join(OUTPUT, 'home.png'))).toBe(true);
    expect(existsSync(path.join(OUTPUT, 'algorithms.png'))).toBe(true);
  });
});
