import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DefaultTheme, defineConfig } from 'vitepress';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A heading's markdown as the sidebar's HTML (VitePress shows an item's `text` as HTML):
 * `` `Limit.concurrent` `` becomes `<code>Limit.concurrent</code>`, not raw backticks.
 */
function inlineHtml(markdown: string): string {
  const escaped = markdown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * The pages of a folder for the sidebar, in file-name order, each titled by its first `# `
 * heading: a feature page dropped into docs/guide/features/ appears without editing this file.
 */
function folder(dir: string): DefaultTheme.SidebarItem[] {
  return readdirSync(path.join(docs, dir))
    .filter((f) => f.endsWith('.md') && f !== 'index.md')
    .sort()
    .map((f) => {
      const title = /^# (.+)$/m.exec(readFileSync(path.join(docs, dir, f), 'utf8'))?.[1];
      return { text: title ? inlineHtml(title) : f, link: `/${dir}/${f.replace(/\.md$/, '')}` };
    });
}

const sidebar: DefaultTheme.Sidebar = [
  {
    text: 'Getting started',
    items: [
      { text: 'Express', link: '/guide/express' },
      { text: 'Fastify', link: '/guide/fastify' },
      { text: 'Koa', link: '/guide/koa' },
      { text: 'NestJS', link: '/guide/nestjs' },
      { text: 'Hono (Node, Bun, Deno, Workers)', link: '/guide/hono' },
      { text: 'Bun.serve, Deno.serve, Workers', link: '/guide/fetch' },
      { text: 'Next.js', link: '/guide/nextjs' },
      { text: 'Workers with Durable Objects', link: '/guide/cloudflare' },
      { text: 'Without a framework: RateLimiter', link: '/guide/rate-limiter' },
      { text: 'The demo, from a clone', link: '/guide/demo' },
    ],
  },
  {
    text: 'Guide',
    items: [
      { text: 'Concepts', link: '/guide/concepts' },
      { text: 'Algorithms', link: '/guide/algorithms' },
      { text: 'Production', link: '/guide/production' },
      { text: 'Operating sluice', link: '/guide/operating' },
      { text: 'Choosing a store', link: '/guide/stores' },
      { text: 'PostgreSQL store', link: '/guide/postgres' },
      { text: 'SQLite store', link: '/guide/sqlite' },
      { text: 'Upstash (Redis over HTTP)', link: '/guide/upstash' },
      { text: 'Testing your app', link: '/guide/testing' },
      { text: 'The calling side (client)', link: '/guide/client' },
      { text: 'Developing sluice', link: '/guide/development' },
      { text: 'The source tree', link: '/guide/source-tree' },
    ],
  },
  {
    text: 'Beyond HTTP requests',
    items: [
      { text: 'GraphQL query cost', link: '/guide/graphql' },
      { text: 'WebSockets and socket.io', link: '/guide/websockets' },
      { text: 'tRPC', link: '/guide/trpc' },
      { text: 'LLM token budgets', link: '/guide/ai' },
    ],
  },
  { text: 'Features', link: '/guide/features/', items: folder('guide/features') },
  {
    text: 'Migrating',
    link: '/migrating/',
    items: [
      { text: 'from express-rate-limit', link: '/migrating/express-rate-limit' },
      { text: 'from @fastify/rate-limit', link: '/migrating/fastify-rate-limit' },
      { text: 'from rate-limiter-flexible', link: '/migrating/rate-limiter-flexible' },
      { text: 'from koa-ratelimit', link: '/migrating/koa-ratelimit' },
      { text: 'from @nestjs/throttler', link: '/migrating/nestjs-throttler' },
      { text: "from Laravel's throttle", link: '/migrating/laravel' },
      { text: 'from redis-cell', link: '/migrating/redis-cell' },
      { text: 'from hono-rate-limiter', link: '/migrating/hono-rate-limiter' },
      { text: 'from @upstash/ratelimit', link: '/migrating/upstash-ratelimit' },
      { text: 'Upgrading sluice', link: '/migrating/upgrading' },
    ],
  },
  {
    text: 'Reference',
    link: '/reference/',
    items: [
      { text: '@sluice/core', link: '/reference/api/core' },
      { text: '@sluice/express', link: '/reference/api/express' },
      { text: '@sluice/fastify', link: '/reference/api/fastify' },
      { text: '@sluice/koa', link: '/reference/api/koa' },
      { text: '@sluice/nestjs', link: '/reference/api/nestjs' },
      { text: '@sluice/redis', link: '/reference/api/redis' },
      { text: '@sluice/postgres', link: '/reference/api/postgres' },
      { text: '@sluice/sqlite', link: '/reference/api/sqlite' },
      { text: '@sluice/client', link: '/reference/api/client' },
      { text: '@sluice/fetch', link: '/reference/api/fetch' },
      { text: '@sluice/hono', link: '/reference/api/hono' },
      { text: '@sluice/graphql', link: '/reference/api/graphql' },
      { text: '@sluice/ws', link: '/reference/api/ws' },
      { text: '@sluice/trpc', link: '/reference/api/trpc' },
      { text: '@sluice/ai', link: '/reference/api/ai' },
      { text: '@sluice/cloudflare', link: '/reference/api/cloudflare' },
      { text: '@sluice/cli (the sluice command)', link: '/reference/cli' },
      { text: '@sluice/core/store', link: '/reference/api/core/store' },
      { text: '@sluice/core/http', link: '/reference/api/core/http' },
      { text: '@sluice/core/protocol', link: '/reference/api/core/protocol' },
    ],
  },
  { text: 'Benchmarks', link: '/benchmarks' },
  { text: 'Reliability (fault matrix)', link: '/reliability' },
];

/**
 * VitePress's heading slugs, keeping `_`: the generated reference links constants as
 * `#throttle_name` (typedoc-plugin-markdown), which the default slugify would make
 * `#throttle-name`.
 */
function slugify(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036F]/g, '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips control characters, as VitePress does
      .replace(/[\u0000-\u001f]/g, '')
      .replace(/[\s~`!@#$%^&*()\-+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '')
      .replace(/^(\d)/, '_$1')
      .toLowerCase()
  );
}

export default defineConfig({
  title: 'sluice',
  description:
    'Exact, fast rate limiting for Express, Fastify, Koa, NestJS, Hono and fetch runtimes (Bun, Deno, Workers, Next.js), in memory or on Redis, PostgreSQL, SQLite or Durable Objects',
  lang: 'en-US',
  // README.md is the contributors' note; the rest are sources, not pages.
  srcExclude: ['README.md', 'snippets/**', 'scripts/**', 'test/**', 'screenshots/**'],
  // A link to a page that does not exist fails the build.
  ignoreDeadLinks: false,
  lastUpdated: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  markdown: { anchor: { slugify } },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/express' },
      { text: 'Algorithms', link: '/guide/algorithms' },
      { text: 'Migrating', link: '/migrating/' },
      { text: 'Reference', link: '/reference/' },
      { text: 'Benchmarks', link: '/benchmarks' },
    ],
    sidebar,
    outline: [2, 3],
    search: {
      provider: 'local',
      options: {
        // Each result shows the lines that matched: "getTracker" finds the migration
        // table's row, not a bare page title.
        detailedView: true,
        miniSearch: {
          searchOptions: {
            // A name of another library's API (ThrottlerModule, getTracker, timeWindow,
            // RateLimiterRedis) leads to the migration page that translates it before a
            // reference page that mentions it in passing. 1.3: enough for those, while
            // sluice's own names (Limit, RedisStore) still lead to the guides and the
            // reference (x1.5 put the migration pages first for "Limit"). VitePress sends
            // this function to the browser as its source text: it uses nothing of this file.
            // A sluice name (RedisStore, PostgresStore, pacedFetch) opens the guide that
            // teaches it: the guides x3 (they name no other library's API, so the migration
            // pages keep those), the reference x0.1 (generated from the TSDoc, every name a
            // heading there: x0.4 still put it first, and the guides at x1 lost to the
            // migration pages' x1.3).
            boostDocument: (id: string) =>
              id.startsWith('/guide/')
                ? 3
                : id.startsWith('/migrating/')
                  ? 1.3
                  : id.startsWith('/reference/')
                    ? 0.1
                    : 1,
          },
        },
      },
    },
  },
});
