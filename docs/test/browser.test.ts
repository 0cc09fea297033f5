// The built site in a real browser: builds docs/ (pnpm docs:build's steps), serves
// .vitepress/dist on 127.0.0.1, opens every page reachable from the home page in headless
// Chromium (Debian's, driven by playwright-core) and fails on a console error, a page error,
// a failed or 4xx/5xx request, a broken internal link or anchor, an image that did not
// load, a table or code block wider than its column at 1280 px, or raw markdown in the
// sidebar. Then every plot (algorithms, client, prefetch): readable at 1280 px and at 390 px
// (text >= 10 px as shown) and drawn on a dark background in dark mode; the NestJS page at
// 390 px with nothing cut off; and the search: another library's API name (ThrottlerModule,
// getTracker…) finds the migration page that translates it first, showing the name, and a
// sluice name (RedisStore, PostgresStore, pacedFetch…) a guide before the reference.
// Screenshots go to docs/.test-output/screenshots/.
// perf: one Chromium for the file, a fresh context (a new profile) per viewport and theme, and
// the crawl on CRAWL_PAGES tabs at once: each tab still waits for its page's network to go
// quiet (500 ms of nothing, Playwright's networkidle) before reading it, and those waits now
// overlap; the plot and NestJS cases, and the search terms in SEARCH_TABS lanes, run side by
// side, each in its own context.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { DOCS, run, TSX } from './paths.js';

jest.setTimeout(600_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = path.join(DOCS, '.vitepress', 'dist');
const OUTPUT = path.join(DOCS, '.test-output', 'screenshots');
/** Tabs the crawl opens at once (each waits out its own networkidle). */
const CRAWL_PAGES = 4;
/** Search boxes the search test types into at once. */
const SEARCH_TABS = 3;
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

/**
 * Runs in the page (a string: the repository's tsconfig has no DOM types): every table and
 * code block of the page's content wider than the box it is in (cut off, or behind a
 * sideways scrollbar a phone does not show), as "table N: W px in C px", the page's width,
 * and whether the sidebar shows raw markdown (a backtick).
 */
const LAYOUT_PROBE = `(() => {
  const clipped = (selector, what) => [...document.querySelectorAll(selector)]
    .map((t, i) => ({ i, scroll: t.scrollWidth, client: t.clientWidth }))
    .filter((t) => t.scroll > t.client + 1)
    .map((t) => what + ' ' + (t.i + 1) + ': ' + t.scroll + ' px in ' + t.client + ' px');
  const tables = clipped('.vp-doc table', 'table');
  const code = clipped('.vp-doc div[class*="language-"] pre', 'code block');
  const sidebar = document.querySelector('.VPSidebar');
  return {
    tables,
    code,
    pageWidth: document.documentElement.scrollWidth,
    sidebarMarkdown: sidebar !== null && sidebar.textContent.includes('\u0060'),
  };
})()`;

/** What {@link LAYOUT_PROBE} reports. */
interface Layout {
  tables: string[];
  code: string[];
  pageWidth: number;
  sidebarMarkdown: boolean;
}

/** What {@link PLOT_PROBE} reports of one plot shown on the page. */
interface PlotProbe {
  src: string;
  /** The drawing's own width (its SVG `width`), and the width it is shown at, in CSS px. */
  drawn: number;
  shown: number;
  right: number;
  /** The smallest `font-size` of the drawing's text, in its own px. */
  minFont: number;
  textFills: string[];
  /** The pixel at (2, 2) of the image as the browser decoded it, [r, g, b]. */
  corner: number[];
}

/**
 * Runs in the page: each visible algorithm plot, its source, sizes, the drawing's text
 * sizes and colours (read from the SVG the browser chose), and its background pixel.
 */
const PLOT_PROBE = `(async () => {
  const plots = [];
  for (const img of document.querySelectorAll('.vp-doc img[src*="/plots/"]')) {
    const box = img.getBoundingClientRect();
    if (box.width === 0) continue; // the other theme's
    const svg = new DOMParser().parseFromString(
      await (await fetch(img.currentSrc)).text(), 'image/svg+xml');
    const texts = [...svg.querySelectorAll('text')];
    const fontOf = (e) => {
      for (let n = e; n && n.getAttribute; n = n.parentNode) {
        const f = n.getAttribute('font-size');
        if (f) return parseFloat(f);
      }
      return NaN;
    };
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    plots.push({
      src: img.currentSrc,
      drawn: Number(svg.documentElement.getAttribute('width')),
      shown: box.width,
      right: box.right,
      minFont: Math.min(...texts.map(fontOf)),
      textFills: texts.map((t) => t.getAttribute('fill')),
      corner: [...ctx.getImageData(2, 2, 1, 1).data].slice(0, 3),
    });
  }
  return {
    dark: document.documentElement.classList.contains('dark'),
    width: window.innerWidth,
    plots,
  };
})()`;

/** Relative luminance (WCAG) of `#rrggbb`, `#rgb` or `[r, g, b]`, 0 (black) to 1 (white). */
function luminance(colour: string | number[]): number {
  // `#rgb` is `#rrggbb` with each digit doubled.
  const hex =
    typeof colour === 'string' && /^#[0-9a-f]{3}$/i.test(colour)
      ? `#${[...colour.slice(1)].map((d) => d + d).join('')}`
      : colour;
  const rgb =
    typeof hex === 'string' ? [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) : hex;
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
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
  let base: string | undefined;
  let browser: Browser | undefined;

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });

  /** A fresh context (a new profile) of the file's Chromium at `viewport`, for `use`; then closed. */
  async function withPage(
    viewport: { width: number; height: number; dark: boolean },
    use: (page: Page) => Promise<void>,
  ): Promise<void> {
    if (browser === undefined) throw new Error('Chromium was not started (see the first test)');
    const context = await browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      // VitePress's appearance follows the system's until the reader picks one.
      colorScheme: viewport.dark ? 'dark' : 'light',
    });
    try {
      await use(await context.newPage());
    } finally {
      await context.close();
    }
  }

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
    base = served.base;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const crawlStarted = Date.now();
    const problems: string[] = [];
    const ids = new Map<string, Set<string>>(); // page path -> element ids
    const anchors: { from: string; page: string; hash: string }[] = [];
    const aborted: { from: string; url: string }[] = [];
    const queue = ['/'];
    const seen = new Set(queue);
    const files: string[] = [];
    const docBase = base;

    /** One tab of the crawl: what it reports is about the page it has open, `current`. */
    const tab = async () => {
      const page = await context.newPage();
      const state = { current: '/' };
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`${state.current}: console error: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`${state.current}: page error: ${e.message}`));
      page.on('requestfailed', (r) => {
        if (!r.url().startsWith(docBase)) return;
        // Leaving a page cancels the chunks VitePress prefetches for its links: those must
        // exist, checked below; any other failure is a problem.
        if (r.failure()?.errorText === 'net::ERR_ABORTED')
          aborted.push({ from: state.current, url: r.url() });
        else
          problems.push(`${state.current}: request failed: ${r.url()} (${r.failure()?.errorText})`);
      });
      page.on('response', (r) => {
        if (r.url().startsWith(docBase) && r.status() >= 400) {
          problems.push(`${state.current}: ${r.status()} for ${r.url()}`);
        }
      });
      return { page, state };
    };

    /** Opens `current` in `page` and reads it: its problems, ids, links (queued) and images. */
    const visit = async (page: Page, current: string) => {
      const response = await page.goto(docBase + current, { waitUntil: 'load' });
      if (response?.status() !== 200) {
        problems.push(`${current}: status ${response?.status()}`);
        return;
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
      const layout = (await page.evaluate(LAYOUT_PROBE)) as Layout;
      // The generated API reference has wide signature tables of its own; every written
      // page's tables and code blocks fit the column at 1280 px.
      if (!current.startsWith('/reference/api/')) {
        for (const t of [...layout.tables, ...layout.code])
          problems.push(`${current}: ${t} (clipped at 1280 px)`);
      }
      if (layout.sidebarMarkdown) problems.push(`${current}: raw markdown in the sidebar`);
      for (const img of found.images) {
        if (!img.ok) problems.push(`${current}: image did not load: ${img.src}`);
      }
      for (const href of found.links) {
        const url = new URL(href);
        if (url.origin !== docBase) continue;
        const target = url.pathname;
        if (url.hash.length > 1) {
          anchors.push({
            from: current,
            page: target,
            hash: decodeURIComponent(url.hash.slice(1)),
          });
        }
        if (seen.has(target)) continue;
        seen.add(target);
        // A download (the Grafana dashboard's JSON, say) is fetched, not opened: Chromium
        // would show it as a page of its own and ask for a /favicon.ico the site has not.
        if (/\.[a-z0-9]+$/i.test(target) && !target.endsWith('.html')) files.push(target);
        else queue.push(target);
      }
      if (current === '/' || current === '/guide/algorithms.html') {
        mkdirSync(OUTPUT, { recursive: true });
        const name = current === '/' ? 'home' : 'algorithms';
        await page.screenshot({ path: path.join(OUTPUT, `${name}.png`), fullPage: true });
      }
    };

    // The tabs take pages from one queue; a tab that finds it empty waits while another tab
    // is still reading a page (whose links may fill it), and stops once none is.
    let reading = 0;
    let wake: (() => void)[] = [];
    const wakeAll = () => {
      for (const w of wake) w();
      wake = [];
    };
    const crawl = async () => {
      const { page, state } = await tab();
      for (;;) {
        const next = queue.shift();
        if (next === undefined) {
          if (reading === 0) return wakeAll();
          await new Promise<void>((r) => wake.push(r));
          continue;
        }
        reading++;
        state.current = next;
        try {
          await visit(page, next);
        } finally {
          reading--;
          wakeAll();
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: CRAWL_PAGES }, crawl));
    } finally {
      await context.close();
    }
    const crawlSeconds = (Date.now() - crawlStarted) / 1000;
    for (const file of files) {
      const response = await fetch(`${base}${file}`);
      if (response.status !== 200) problems.push(`${file}: status ${response.status}`);
      await response.arrayBuffer();
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
      `docs site: built in ${buildSeconds.toFixed(0)} s; ${ids.size} pages opened in Chromium ` +
        `(${CRAWL_PAGES} tabs, ${crawlSeconds.toFixed(0)} s), ` +
        `${anchors.length} anchor links checked, in ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
    );
    expect(problems).toEqual([]);
    for (const p of MUST_REACH) expect([...ids.keys()]).toContain(p);
    expect(existsSync(path.join(OUTPUT, 'home.png'))).toBe(true);
    expect(existsSync(path.join(OUTPUT, 'algorithms.png'))).toBe(true);
  });

  it('shows every plot (algorithms, client, prefetch) readable at 1280 px and at 390 px, and dark in dark mode', async () => {
    if (base === undefined) throw new Error('the site was not built and served (see above)');
    // Each case's drawing: the file name's suffix before `.svg` (plot-theme.ts's plotFile).
    const cases = [
      { name: '1280', width: 1280, height: 900, dark: false, suffix: '', minPx: 11 },
      { name: '390', width: 390, height: 844, dark: false, suffix: '-narrow', minPx: 10 },
      { name: 'dark', width: 1280, height: 900, dark: true, suffix: '-dark', minPx: 11 },
      { name: '390-dark', width: 390, height: 844, dark: true, suffix: '-narrow-dark', minPx: 10 },
    ];
    const pages = [
      { name: 'algorithms', path: '/guide/algorithms.html', plots: 3 },
      { name: 'client', path: '/guide/client.html', plots: 1 },
      { name: 'prefetch', path: '/guide/features/prefetch.html', plots: 1 },
    ];
    const problems: string[] = [];
    mkdirSync(OUTPUT, { recursive: true });
    // The four cases side by side, each in its own context (the pages in turn within one).
    await Promise.all(
      cases.map((c) =>
        withPage(c, async (page) => {
          for (const shown of pages) {
            await page.goto(`${base}${shown.path}`, { waitUntil: 'networkidle' });
            const probe = (await page.evaluate(PLOT_PROBE)) as {
              dark: boolean;
              width: number;
              plots: PlotProbe[];
            };
            const where = `${shown.name}-${c.name}:`;
            if (probe.dark !== c.dark)
              problems.push(`${where} the page is ${probe.dark ? 'dark' : 'light'}`);
            if (probe.plots.length !== shown.plots)
              problems.push(`${where} ${probe.plots.length} plots shown, not ${shown.plots}`);
            for (const p of probe.plots) {
              const at = `${where} ${new URL(p.src).pathname}`;
              const suffix = /((?:-narrow)?(?:-dark)?)\.svg$/.exec(p.src)?.[1];
              if (suffix !== c.suffix)
                problems.push(`${at}: not the drawing for this width and theme`);
              // The text as shown: the drawing's font size times the scale it is shown at.
              const px = p.minFont * (p.shown / p.drawn);
              if (!(px >= c.minPx))
                problems.push(`${at}: text shown at ${px.toFixed(1)} px (< ${c.minPx})`);
              if (p.right > probe.width + 0.5) problems.push(`${at}: wider than the screen`);
              const background = luminance(p.corner);
              const text = Math.min(
                ...p.textFills
                  .filter(Boolean)
                  .map((f) => (c.dark ? luminance(f) : 1 - luminance(f))),
              );
              if (c.dark ? background > 0.1 : background < 0.8)
                problems.push(
                  `${at}: background luminance ${background.toFixed(2)} in ${c.dark ? 'dark' : 'light'} mode`,
                );
              if (!(text > 0.5))
                problems.push(`${at}: text does not stand out from the background`);
            }
            // The first plot with the text above it, as a reader scrolled there sees it.
            await page.evaluate(`[...document.querySelectorAll('.vp-doc img[src*="/plots/"]')]
            .find((img) => img.getBoundingClientRect().width > 0)
            ?.scrollIntoView({ block: 'center' })`);
            await page.screenshot({ path: path.join(OUTPUT, `${shown.name}-${c.name}.png`) });
          }
        }),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('the NestJS page at 390 px: no code block or table cut off, nothing wider than the screen', async () => {
    if (base === undefined) throw new Error('the site was not built and served (see above)');
    const problems: string[] = [];
    const widths = [
      { width: 390, height: 844, dark: false },
      { width: 1280, height: 900, dark: false },
    ];
    await Promise.all(
      widths.map((c) =>
        withPage(c, async (page) => {
          await page.goto(`${base}/guide/nestjs.html`, { waitUntil: 'networkidle' });
          const layout = (await page.evaluate(LAYOUT_PROBE)) as Layout;
          for (const t of [...layout.tables, ...layout.code]) problems.push(`${c.width} px: ${t}`);
          if (layout.pageWidth > c.width)
            problems.push(`${c.width} px: the page is ${layout.pageWidth} px wide`);
          // The page's first TypeScript block (the controller), as a reader scrolled there sees it.
          await page.evaluate(`document.querySelectorAll('.vp-doc div[class*="language-"]')[1]
          ?.scrollIntoView({ block: 'start' })`);
          await page.screenshot({ path: path.join(OUTPUT, `nestjs-${c.width}.png`) });
        }),
      ),
    );
    expect(problems).toEqual([]);
  });

  it("search finds the old APIs' names: the migration page that translates each comes first, showing it", async () => {
    if (base === undefined) throw new Error('the site was not built and served (see above)');
    // Names a reader of another library types, each answered on a migration page.
    const OLD_NAMES = [
      'ThrottlerModule',
      'getTracker',
      'ThrottlerGuard',
      'ThrottlerStorageRedisService',
      'RateLimiterRedis',
      'timeWindow',
    ];
    // sluice's own names still lead to sluice's pages first.
    const OWN_NAMES = ['SluiceModule', 'RedisStore', 'Limit'];
    // Names the reference documents and a guide teaches.
    const GUIDE_NAMES = [
      'PostgresStore',
      'SqliteStore',
      'pacedFetch',
      'limitFetch',
      'LimitOperations',
    ];
    const found: Record<string, { href: string; text: string } | undefined> = {};
    // perf: each term takes the box's 200 ms debounce and its excerpts' fetch (about 0.8 s):
    // the terms in SEARCH_TABS lanes at once, each its own context and search box.
    const terms = [...OLD_NAMES, ...OWN_NAMES, ...GUIDE_NAMES];
    const lanes = Array.from({ length: SEARCH_TABS }, (_, lane) =>
      terms.filter((_, i) => i % SEARCH_TABS === lane),
    );
    const searchLane = (laneTerms: string[]) =>
      withPage({ width: 1280, height: 900, dark: false }, async (page) => {
        await page.goto(`${base}/`, { waitUntil: 'networkidle' });
        for (const term of laneTerms) {
          await page.click('.VPNavBarSearch button');
          const input = page.locator('.VPLocalSearchBox input');
          await input.fill(term);
          // The box searches 200 ms after the last keystroke, then fetches each result's
          // excerpt and marks the matched words in it: the results have settled on this term
          // once marks are shown (the box was emptied before, below, so none is left from the
          // previous term's results).
          await page
            .waitForFunction(
              `document.querySelector('.VPLocalSearchBox input')?.value === ${JSON.stringify(term)} &&
           document.querySelectorAll('.VPLocalSearchBox .result').length > 0 &&
           document.querySelector('.VPLocalSearchBox .results mark[data-markjs="true"]') !== null`,
              undefined,
              { timeout: 10_000 },
            )
            .catch(() => undefined);
          found[term] = (await page.evaluate(`(() => {
          const first = document.querySelector('.VPLocalSearchBox .result');
          return first ? { href: first.getAttribute('href'), text: first.textContent } : undefined;
        })()`)) as { href: string; text: string } | undefined;
          if (term === 'getTracker')
            await page.screenshot({ path: path.join(OUTPUT, 'search-getTracker.png') });
          // The box keeps its text when closed: empty it, and wait for its results to go.
          await input.fill('');
          await page.waitForFunction(
            `document.querySelectorAll('.VPLocalSearchBox .result').length === 0`,
            undefined,
            { timeout: 10_000 },
          );
          await page.keyboard.press('Escape');
        }
      });
    await Promise.all(lanes.map(searchLane));
    expect(Object.keys(found).sort()).toEqual([...terms].sort());
    const problems: string[] = [];
    for (const term of OLD_NAMES) {
      const first = found[term];
      if (first === undefined) problems.push(`${term}: no result`);
      else {
        if (!first.href.startsWith('/migrating/'))
          problems.push(`${term}: the first result is ${first.href}, not a migration page`);
        if (!first.text.toLowerCase().includes(term.toLowerCase()))
          problems.push(`${term}: the first result does not show the name`);
      }
    }
    // ...and a guide before the reference, which lists every name.
    for (const term of [...OWN_NAMES, ...GUIDE_NAMES]) {
      const first = found[term];
      if (first === undefined || !first.href.startsWith('/guide/'))
        problems.push(`${term}: the first result is ${first?.href ?? 'none'}, not a guide`);
    }
    expect(problems).toEqual([]);
  });
});
