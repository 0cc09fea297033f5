import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { FetchServe } from './fetch-harness.js';

/**
 * Serves a fetch handler on Node through `@hono/node-server` (its handler's second argument
 * is `{ incoming, outgoing }`: what `ip.node()` reads) on 127.0.0.1, a free port.
 */
export const serveOnNode: FetchServe = (app) =>
  new Promise((resolve) => {
    const server = serve({ fetch: app, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
  });
