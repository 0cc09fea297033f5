import type { AddressInfo } from 'node:net';
import type { HeaderStyleName } from '@sluice/core';
import { Limit, MemoryStore } from '@sluice/core';
import { rateLimit as expressLimit } from '@sluice/express';
import { rateLimit as fastifyLimit } from '@sluice/fastify';
import { rateLimit as koaLimit } from '@sluice/koa';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';

/** A sluice server on 127.0.0.1: 10 requests a second per client, `GET /items` answers 200. */
export interface PacedServer {
  url: string;
  /** Statuses in the order the server answered, with the server clock's time. */
  log: { at: number; status: number }[];
  close(): Promise<void>;
}

export type Adapter = 'express' | 'fastify' | 'koa';

export interface ServerOptions {
  adapter: Adapter;
  headers: HeaderStyleName;
  clock: () => number;
  limit?: Limit;
  body?: 'json' | 'problem';
}

/** Starts one adapter's app with a fresh in-memory limit on `clock`. */
export async function startServer(o: ServerOptions): Promise<PacedServer> {
  const options = {
    limit: o.limit ?? Limit.perSecond(10).named('api'),
    headers: o.headers,
    clock: o.clock,
    store: new MemoryStore(),
    body: o.body ?? 'json',
  };
  const log: PacedServer['log'] = [];
  const record = (status: number) => log.push({ at: o.clock(), status });
  if (o.adapter === 'express') {
    const app = express();
    app.use((req, res, next) => {
      res.on('finish', () => record(res.statusCode));
      next();
    });
    app.use(expressLimit(options));
    app.get('/items', (_req, res) => {
      res.json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/items`,
      log,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
  if (o.adapter === 'fastify') {
    const app = Fastify();
    app.addHook('onResponse', async (_req, reply) => {
      record(reply.statusCode);
    });
    await app.register(fastifyLimit, options);
    app.get('/items', async () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/items`,
      log,
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
      },
    };
  }
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      record(ctx.status);
    }
  });
  app.use(koaLimit(options));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/items`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
