// The shared behaviour table through @sluice/fetch and @sluice/hono on workerd, without
// nodejs_compat: a Worker whose `/run` request registers every table and runs it in that
// request, each app called in-process (`app.fetch(request)`, the client IP in
// CF-Connecting-IP, as Cloudflare's edge sends it), and answers the summary as JSON.
// Bundled by test-kit's bundleTableForWorkerd for runtimes.test.ts, which starts workerd from npm.
import * as luxon from 'luxon';
import { provideLuxon } from '../../../core/src/index.js';
import { ip } from '../../../fetch/src/index.js';
import { buildFetchApp, buildOutOfReach } from '../../../fetch/test/fetch-app.js';
import { installGlobals, runCollected } from '../../../test-kit/src/mini-runner.js';
import {
  type AdapterHarness,
  type AppSpec,
  BEHAVIOUR_TABLES,
  type FetchApp,
  fetchClient,
} from '../../../test-kit/src/table.js';
import { buildHonoApp, buildHonoOutOfReach } from '../hono-app.js';

/**
 * The rows that cannot run here, with the reason: they open a real connection with
 * node:http and drop it while the handler holds the request, which an in-process call
 * inside one Worker request cannot do. (A dropped client is covered on workerd by the
 * stream cancellation of @sluice/fetch; on Node, Bun and Deno these rows run.)
 */
export const WORKERD_UNSUPPORTED: Record<string, string> = {
  'the lease of a request whose client disconnects is released':
    'needs a real connection to drop (node:http client); in-process calls have none',
  'a connection closed before the response ended counts as failed':
    'needs a real connection to drop (node:http client); in-process calls have none',
  "mode 'queue': a client that disconnects while waiting gives its slot back; the next request takes it":
    'needs a real connection to drop (node:http client); in-process calls have none',
};

const socket = ip.cloudflare();

/** A client that calls the app in-process, as a request from 127.0.0.1 through Cloudflare. */
function inProcess(build: () => { app: FetchApp; runs: Map<string, number> }) {
  const { app, runs } = build();
  const send = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    if (!headers.has('cf-connecting-ip')) headers.set('cf-connecting-ip', '127.0.0.1');
    try {
      return await app(new Request(url, { ...init, headers }));
    } catch {
      // What workerd answers for an exception out of a fetch handler.
      return new Response('Internal Server Error', { status: 500 });
    }
  };
  const client = fetchClient('http://in-process', runs, async () => undefined, send);
  client.url = undefined;
  return client;
}

function harness(
  name: AdapterHarness['name'],
  build: (spec: AppSpec) => { app: FetchApp; runs: Map<string, number> },
  outOfReach: AdapterHarness['startOutOfReach'] extends (...a: infer A) => unknown
    ? (...a: A) => { app: FetchApp; runs: Map<string, number> }
    : never,
): AdapterHarness {
  return {
    name,
    start: async (spec) => inProcess(() => build(spec)),
    startOutOfReach: async (spec, route) => inProcess(() => outOfReach(spec, route)),
  };
}

export default {
  async fetch(req: Request): Promise<Response> {
    if (new URL(req.url).pathname !== '/run') return new Response('ready');
    installGlobals();
    // The table's helpers wait a macrotask with setImmediate (Node, Bun, Deno have it).
    const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
    g.setImmediate ??= (fn) => setTimeout(fn, 0);
    provideLuxon(luxon);
    for (const h of [
      harness(
        'fetch on workerd',
        (s) => buildFetchApp(s, socket),
        (s, r) => buildOutOfReach(s, r, socket),
      ),
      harness(
        'hono on workerd',
        (s) => buildHonoApp(s, socket),
        (s, r) => buildHonoOutOfReach(s, r, socket),
      ),
    ]) {
      for (const table of BEHAVIOUR_TABLES) table(h);
    }
    const unsupported = Object.keys(WORKERD_UNSUPPORTED);
    const skipped: string[] = [];
    const summary = await runCollected(30_000, (name) => {
      const skip = unsupported.some((row) => name.endsWith(row));
      if (skip) skipped.push(name);
      return !skip;
    });
    return Response.json({ ...summary, skipped, reasons: WORKERD_UNSUPPORTED });
  },
};
