// What `pnpm test:quick` leaves to the full suite (`pnpm test`): the test files that start a
// child process (redis-server, a worker, a runtime, a build, Chromium) or reach Redis or
// PostgreSQL. scripts/jest/quick-guard.cjs refuses those in the quick tier, so a file missing
// here fails `pnpm test:quick` loudly, naming this list. Paths are regular expressions
// matched against a test file's path from the repository root.

/** Whole jest projects (displayName) that need a server or a child process throughout. */
export const FULL_ONLY_PROJECTS: Record<string, string> = {
  redis: 'every RedisStore test runs against a redis-server it starts',
  postgres: 'every PostgresStore test runs on the local PostgreSQL',
  cli: 'the `sluice` command runs as a process against Redis, PostgreSQL and SQLite',
  examples: 'the demos run as processes (pnpm demo, the README lines)',
  next: '`next build` and `next start`',
  scripts: 'provisioning runs apt-get / the fixtures start binaries',
};

/** Single files of the other projects, with the reason. */
export const FULL_ONLY: Record<string, string> = {
  'docs/test/browser\\.test\\.ts$': 'builds the site, opens it in Chromium',
  'docs/test/prefetch-shutdown\\.test\\.ts$': 'a process on Redis, stopped as the page shows',
  'docs/test/snippets\\.test\\.ts$': 'runs the snippets as processes',
  'docs/test/shown-snippets\\.test\\.ts$':
    "runs the pages' blocks and the README's apps as processes",
  'docs/test/architecture\\.test\\.ts$': 'lists the tracked files with git (a process)',
  'bench/test/(pages|scripts)\\.test\\.ts$':
    'renders the pages through the bench scripts (processes)',
  'packages/cloudflare/test/(bundle|conformance|reserve-all|table|workerd)\\.test\\.ts$':
    'esbuild and workerd processes',
  'packages/hono/test/(bundle|runtimes)\\.test\\.ts$': 'esbuild; Bun, Deno and workerd processes',
  'packages/core/test/http/ip-subject\\.test\\.ts$': 'PostgreSQL inet parity',
  'packages/graphql/test/redis\\.test\\.ts$': 'a redis-server',
  'packages/ai/test/litellm-redis\\.test\\.ts$': 'a redis-server',
  'packages/ai/test/processes\\.test\\.ts$': 'worker processes on Redis and PostgreSQL',
  'packages/sqlite/test/operations-processes\\.test\\.ts$': 'worker processes',
  'packages/ws/test/socket-io\\.test\\.ts$': 'socket.io on Redis, processes',
  'packages/ws/test/bun\\.test\\.ts$': 'a Bun process',
  'packages/[a-z]+/test/package-exports\\.test\\.ts$':
    'builds the package, loads it in Node processes',
  'packages/nestjs/test/docs-and-example\\.test\\.ts$': 'runs the example as a process',
  'packages/client/test/browser-bundle\\.test\\.ts$': 'esbuild, and the bundle in Chromium',
  'packages/sqlite/test/conformance\\.test\\.ts$': 'processes sharing one file',
  'docs/test/(benchmarks|reference)\\.test\\.ts$':
    'render the pages through their scripts (processes)',
  'docs/snippets/client/clients\\.test\\.ts$': 'ky and axios against a server process',
  'packages/(fastify|nestjs)/test/store-ready\\.test\\.ts$':
    'an unmigrated PostgresStore fails start-up: PostgreSQL',
  'packages/sqlite/test/busy\\.test\\.ts$': 'another process holds the write lock',
  // In process, but too slow for the inner loop (about 60 s of it on 2 cores together):
  'packages/[a-z]+/test/export-names\\.test\\.ts$':
    'the export lists: a TypeScript program and checker per entry (about 6 s each)',
  'packages/client/test/pacing\\.test\\.ts$':
    '4,800 paced requests through three frameworks (about 40 s)',
  'packages/fetch/test/streaming-leases\\.test\\.ts$': 'bodies streamed in real time',
};

/**
 * What CI runs once, on Node 20 (`pnpm test`), and not again on Node 22, 24 and 26
 * (jest.node-majors.config.ts): tests of something other than Node, whose answer does not
 * change with the Node major (a server topology, a runtime, TypeScript's types, the pages),
 * and better-sqlite3's addon, built for Node 20 (on 22+ @sluice/sqlite runs on node:sqlite:
 * packages/sqlite/test/node-sqlite.test.ts). The store's own code in one process still runs
 * on every Node (redis-store, batch, prefetch, operations-sync, postgres-store...).
 */
export const ONCE_PER_CI: Record<string, string> = {
  '/packages/redis/test/conformance-': 'the Redis conformance matrix: every client x topology',
  '/packages/redis/test/operations-sentinel\\.test\\.ts$': 'a Sentinel failover',
  '/packages/redis/test/([a-z-]+-processes|contention|late-replies|cluster-[a-z-]+)\\.test\\.ts$':
    "processes racing on one key, Cluster failovers: Redis's atomicity and failover",
  '/packages/redis/test/store-conformance\\.test\\.ts$': 'processes racing: Redis atomicity',
  '/packages/redis/test/conformance-glide(-cluster)?\\.test\\.ts$':
    'processes racing through Valkey GLIDE, standalone and Cluster (also under conformance-)',
  '/packages/redis/test/glide(-reconnect|-cluster-failover)?\\.test\\.ts$':
    'Valkey GLIDE on a standalone server and a Cluster, its reconnects, a Cluster failover (a topology; its addon is Node-API, the same on every major)',
  '/packages/postgres/test/(conformance|operations-processes)\\.test\\.ts$':
    "processes racing: PostgreSQL's atomicity",
  '/packages/hono/test/runtimes\\.test\\.ts$': 'Bun, Deno and workerd',
  '/packages/cloudflare/test/(workerd|conformance|table)\\.test\\.ts$': 'workerd',
  '/packages/sqlite/test/(?!node-sqlite\\.test\\.ts$)':
    "better-sqlite3's addon (built for Node 20)",
  '/packages/(cli/test/sql-stores|fastify/test/store-ready)\\.test\\.ts$':
    "better-sqlite3's addon (built for Node 20)",
  '/examples/next/': '`next build`: Next.js',
  '/docs/test/(browser|pages|reference|benchmarks|architecture|algorithms|shown-snippets)\\.test\\.ts$':
    'the pages: their links, plots, reference, the site in Chromium',
  '/bench/test/': 'the benchmark pages rendered from the committed results',
  '/packages/[a-z]+/test/export-names\\.test\\.ts$': "the export lists: TypeScript's checker",
  '/scripts/test/import-rules\\.test\\.ts$':
    'the import graph (dependency-cruiser): the sources, not Node',
};
