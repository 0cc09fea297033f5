import type { AddressInfo } from 'node:net';
import type { LimitInput } from '@sluice/core';
import { Limit, MemoryStore } from '@sluice/core';
import type { HeaderStyleName } from '@sluice/core/http';
import { rateLimit as expressLimit } from '@sluice/express';
import { rateLimit as fastifyLimit } from '@sluice/fastify';
import { rateLimit as koaLimit } from '@sluice/koa';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import {
  type DispatchFunc,
  type Response as Injected,
  type InjectOptions,
  inject,
} from 'light-my-request';

/**
 * A sluice server: 10 requests a second per client, `GET /items` answers 200. Listening on
 * 127.0.0.1 with `listen`, else reached in process through light-my-request (the same
 * framework code on emulated `req` / `res`, no socket: fast enough for 1,000-request runs).
 */
export interface PacedServer {
  url: string;
  /** A `fetch` for this server: the global one when listening, else in process. */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Requests served (200) and denied (429) in order, with the server clock's time. */
  log: { at: number; status: number }[];
  close(): Promise<void>;
}

export type Adapter = 'express' | 'fastify' | 'koa';

export interface ServerOptions {
  adapter: Adapter;
  headers: HeaderStyleName;
  clock: () => number;
  /** A `Limit`, or a function of the request returning one (a per-request cost). */
  limit?: LimitInput;
  body?: 'json' | 'problem';
  listen?: boolean;
}

/** A `fetch` that answers through `send` (light-my-request's `inject`), never a socket. */
function injectFetch(send: (o: InjectOptions) => Promise<Injected>): PacedServer['fetch'] {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const res = await send({
      method: request.method as InjectOptions['method'],
      url: url.pathname + url.search,
      headers,
      remoteAddress: '127.0.0.1',
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      for (const each of Array.isArray(v) ? v : [v])
        if (each !== undefined) out.append(k, String(each));
    }
    return new Response(res.statusCode === 204 ? null : res.rawPayload, {
      status: res.statusCode,
      headers: out,
    });
  };
}

const URL_IN_PROCESS = 'http://sluice.test/items';

async function listening(
  server: import('node:http').Server,
  log: PacedServer['log'],
): Promise<PacedServer> {
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/items`,
    fetch: (input, init) => fetch(input, init),
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function inProcess(dispatch: DispatchFunc, log: PacedServer['log']): PacedServer {
  return {
    url: URL_IN_PROCESS,
    fetch: injectFetch((o) => inject(dispatch, o)),
    log,
    close: async () => {},
  };
}

/** Starts one adapter's app with a fresh in-memory limit on `clock`. */
export async function startServer(o: ServerOptions): Promise<PacedServer> {
  const options = {
    limit: o.limit ?? Limit.perSecond(10).named('api'),
    headers: o.headers,
    clock: o.clock,
    store: new MemoryStore(),
    body: o.body ?? 'json',
    onLimited: () => record(429),
  };
  const log: PacedServer['log'] = [];
  // Counted where the outcome is decided (the handler ran, the limiter denied), once each.
  const record = (status: number) => log.push({ at: o.clock(), status });
  if (o.adapter === 'express') {
    const app = express();
    app.use(expressLimit(options));
    app.get('/items', (_req, res) => {
      record(200);
      res.json({ ok: true });
    });
    if (o.listen) return listening(app.listen(0, '127.0.0.1'), log);
    return inProcess(app as unknown as DispatchFunc, log);
  }
  if (o.adapter === 'fastify') {
    const app = Fastify();
    await app.register(fastifyLimit, options);
    app.get('/items', async () => {
      record(200);
      return { ok: true };
    });
    if (!o.listen) {
      await app.ready();
      return {
        url: URL_IN_PROCESS,
        fetch: injectFetch((opts) => app.inject(opts) as Promise<Injected>),
        log,
        close: () => app.close(),
      };
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/items`,
      fetch: (input, init) => fetch(input, init),
      log,
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
      },
    };
  }
  const app = new Koa();
  app.use(koaLimit(options));
  app.use((ctx) => {
    record(200);
    ctx.body = { ok: true };
  });
  if (o.listen) return listening(app.listen(0, '127.0.0.1'), log);
  return inProcess(app.callback() as unknown as DispatchFunc, log);
}
