/**
 * Starts the demo API on Express, Fastify and Koa, each on its own port of 127.0.0.1.
 * `pnpm demo` runs this through `bin/demo.ts`; tests call {@link startDemo} with `port: 0`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsOption } from '@sluice/core';
import { createExpressApp } from './express-app.js';
import { createFastifyApp } from './fastify-app.js';
import { createKoaApp } from './koa-app.js';
import { createStores, type DemoStores } from './store.js';

export const FRAMEWORKS = ['express', 'fastify', 'koa'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** Default first port: Express on 3001, Fastify on 3002, Koa on 3003. */
export const DEFAULT_PORT_BASE = 3001;
export const HOST = '127.0.0.1';

export interface DemoOptions {
  /** Express listens on `port`, Fastify on `port + 1`, Koa on `port + 2`; 0: any free ports. */
  port?: number;
  /** The stores; default {@link createStores} (memory, or Redis when `REDIS_URL` is set). */
  stores?: DemoStores;
  /**
   * Every limiter's `metrics` option: default `true`, the global OpenTelemetry meter
   * provider (`pnpm demo` registers one, see telemetry.ts); tests pass `{ meterProvider }`.
   */
  metrics?: MetricsOption;
}

export interface RunningDemo {
  /** The base URL of each app, e.g. `{ express: 'http://127.0.0.1:3001', … }`. */
  urls: Record<Framework, string>;
  /** Where the counters live (for the banner). */
  storeDescription: string;
  /** Stops the three servers and closes the store. */
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve(`http://${HOST}:${(server.address() as AddressInfo).port}`);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Whether `port` on {@link HOST} can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

/**
 * A `PORT_BASE` whose three ports (base, +1, +2) are free now, trying `taken + 1000`,
 * `taken + 2000`… (then downwards), for the hint of a demo whose ports are in use; undefined
 * if none of 20 candidates is free.
 */
export async function freePortBase(taken: number): Promise<number | undefined> {
  const candidates: number[] = [];
  for (let i = 1; i <= 10; i++) candidates.push(taken + 1000 * i, taken - 1000 * i);
  for (const base of candidates.filter((b) => b >= 1024 && b <= 65533)) {
    const free = await Promise.all([0, 1, 2].map((i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  return undefined;
}

/** Starts the three apps; resolves once all three listen. */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const base = options.port ?? DEFAULT_PORT_BASE;
  const stores = options.stores ?? (await createStores());
  const portOf = (i: number) => (base === 0 ? 0 : base + i);

  const metrics = options.metrics ?? true;
  const fastify = await createFastifyApp(stores.storeFor('fastify'), metrics);
  await fastify.ready();
  const servers: Record<Framework, Server> = {
    express: createServer(createExpressApp(stores.storeFor('express'), metrics)),
    fastify: fastify.server,
    koa: createServer(createKoaApp(stores.storeFor('koa'), metrics).callback()),
  };
  const close = async () => {
    await Promise.all(FRAMEWORKS.map((f) => closeServer(servers[f])));
    await fastify.close();
    await stores.close();
  };
  try {
    const urls = {} as Record<Framework, string>;
    for (const [i, f] of FRAMEWORKS.entries()) urls[f] = await listen(servers[f], portOf(i));
    return { urls, storeDescription: stores.description, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** How to try the running demo: the URLs and a few curl lines. */
export function instructions(demo: RunningDemo): string {
  const { express, fastify, koa } = demo.urls;
  const lines = [
    `sluice demo: the same API on three frameworks, counters ${demo.storeDescription}`,
    '',
    `  Express  ${express}`,
    `  Fastify  ${fastify}`,
    `  Koa      ${koa}`,
    '',
    'Routes (the same on each):',
    '  GET  /            public, never limited',
    "  POST /login       'throttle:login': 5 per minute and 100 per day per IP",
    "  GET  /api/me      'throttle:api': 60 per minute per user (Authorization: Bearer <user>, else per IP)",
    "  GET  /api/items   'throttle:api' (the same per-user bucket as /api/me)",
    "  GET  /api/report  'throttle:report': costs 10 from that bucket",
    '',
    'Try it:',
    `  curl -i ${express}/`,
    `  for i in 1 2 3 4 5 6; do curl -s -o /dev/null -w '%{http_code}\\n' -X POST ${express}/login; done`,
    `  curl -i -H 'Authorization: Bearer alice' ${fastify}/api/items`,
    `  curl -i -H 'Authorization: Bearer bob' ${koa}/api/report`,
    '',
    'Or, in another terminal, send traffic from several users and see the counts:',
    '  pnpm demo:drive',
    '',
    'Ctrl-C to stop.',
  ];
  return lines.join('\n');
}
