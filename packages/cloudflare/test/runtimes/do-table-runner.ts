// The shared behaviour table through @sluice/fetch and @sluice/hono on workerd (without nodejs_compat), every
// limit decided by Durable Objects: the Worker of the hono package's workerd runner, with
// each app's MemoryStore swapped for a DurableObjectStore of its own (fresh objects per
// store, so rows do not share state), and SluiceDurableObject bound as env.SLUICE. A `/run`
// request runs every table in that request and answers the summary as JSON (`/run?swap=0`,
// SLUICE_TABLE_NO_SWAP=1 in table.test.ts: the same on the memory stores, to tell a
// runtime's failure from the store's). Bundled by table.test.ts.
import * as luxon from 'luxon';
import { type HttpLimitOptions, MemoryStore, provideLuxon } from '../../../core/src/index.js';
import { ip } from '../../../fetch/src/index.js';
import { buildFetchApp, buildOutOfReach } from '../../../fetch/test/fetch-app.js';
import { buildHonoApp, buildHonoOutOfReach } from '../../../hono/test/hono-app.js';
import { installGlobals, runCollected } from '../../../test-kit/src/mini-runner.js';
import {
  type AdapterHarness,
  type AppSpec,
  BEHAVIOUR_TABLES,
  type FetchApp,
  fetchClient,
} from '../../../test-kit/src/table.js';
import { DurableObjectStore, SluiceDurableObject } from '../../src/index.js';
import type { DurableObjectNamespaceLike } from '../../src/types.js';

export { SluiceDurableObject };

/** The rows that cannot run here, each with the reason. */
export const UNSUPPORTED: Record<string, string> = {
  "inherits store and prefix: the route counts in the app's store, under its prefix":
    "tells the app's MemoryStore from the route's by their counts; the runner swaps one " +
    'DurableObjectStore in for every store of a row, so both count in one',
  "inherits onStoreError (with the store): the app's 'deny' answers a failing store's request":
    "fails the app's own store object; the DurableObjectStore swapped in for it does not fail",
  'the lease of a request whose client disconnects is released':
    'needs a real connection to drop (node:http client); in-process calls have none',
  'a connection closed before the response ended counts as failed':
    'needs a real connection to drop (node:http client); in-process calls have none',
  'the lease of a killed process expires after leaseMs':
    "stands for another process by taking a lease straight on the row's MemoryStore, which the " +
    'DurableObjectStore swapped in for it does not see (the conformance suite covers lease expiry)',
  "mode 'queue': a client that disconnects while waiting gives its slot back; the next request takes it":
    'needs a real connection to drop (node:http client); in-process calls have none',
};

const socket = ip.cloudflare();
let namespace: DurableObjectNamespaceLike;
let stores = 0;
let noSwap = false;

/** Each MemoryStore of the row (and the app's default store) as a DurableObjectStore of its own. */
const swapped = new WeakMap<object, DurableObjectStore>();
function durable(store: unknown): DurableObjectStore {
  const key = (store ?? swapped) as object;
  let found = swapped.get(key);
  if (found === undefined) {
    found = new DurableObjectStore({ namespace, name: `table-${++stores}` });
    swapped.set(key, found);
  }
  return found;
}

// A row's LimitOperations is built on its MemoryStore before the app (and the swap) exists:
// a MemoryStore's `operations` are those of the DurableObjectStore swapped in for it, so the
// row's entries are written to and read from Durable Objects, as its limiters decide there.
const memoryOperations = Object.getOwnPropertyDescriptor(MemoryStore.prototype, 'operations')!;
function operationsOnDurableObjects(on: boolean): void {
  Object.defineProperty(
    MemoryStore.prototype,
    'operations',
    on
      ? {
          configurable: true,
          get(this: MemoryStore) {
            return durable(this).operations;
          },
        }
      : memoryOperations,
  );
}

function withDurableStores(spec: AppSpec): AppSpec {
  if (noSwap) return spec;
  const app = {}; // the app's default store: one per app
  const swap = (options: HttpLimitOptions | undefined): HttpLimitOptions | undefined => {
    if (options === undefined) return undefined;
    const store = options.store;
    if (store !== undefined && !(store instanceof MemoryStore)) return options;
    return { ...options, store: durable(store ?? app) };
  };
  return {
    ...spec,
    global: swap(spec.global),
    routes: spec.routes.map((r) =>
      r.limit === undefined || r.limit === false ? r : { ...r, options: swap(r.options ?? {}) },
    ),
  };
}

/** A client that calls the app in-process, as a request from 127.0.0.1 through Cloudflare. */
function inProcess(build: () => { app: FetchApp; runs: Map<string, number> }) {
  const { app, runs } = build();
  const send = async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    if (!headers.has('cf-connecting-ip')) headers.set('cf-connecting-ip', '127.0.0.1');
    try {
      return await app(new Request(url, { ...init, headers }));
    } catch {
      return new Response('Internal Server Error', { status: 500 });
    }
  };
  const client = fetchClient('http://in-process', runs, async () => undefined, send);
  client.url = undefined;
  return client;
}

const harnesses: AdapterHarness[] = [
  {
    name: 'fetch on workerd, DurableObjectStore',
    start: async (spec) => inProcess(() => buildFetchApp(withDurableStores(spec), socket)),
    startOutOfReach: async (spec, route) =>
      inProcess(() => buildOutOfReach(withDurableStores(spec), route, socket)),
  },
  {
    name: 'hono on workerd, DurableObjectStore',
    start: async (spec) => inProcess(() => buildHonoApp(withDurableStores(spec), socket)),
    startOutOfReach: async (spec, route) =>
      inProcess(() => buildHonoOutOfReach(withDurableStores(spec), route, socket)),
  },
];

export default {
  async fetch(req: Request, env: { SLUICE: DurableObjectNamespaceLike }): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname.startsWith('/__do/')) return new Response('not here', { status: 404 });
    if (url.pathname !== '/run') return new Response('ready');
    namespace = env.SLUICE;
    noSwap = url.searchParams.get('swap') === '0';
    operationsOnDurableObjects(!noSwap);
    installGlobals();
    const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
    g.setImmediate ??= (fn) => setTimeout(fn, 0);
    provideLuxon(luxon);
    for (const harness of harnesses) for (const table of BEHAVIOUR_TABLES) table(harness);
    const unsupported = Object.keys(UNSUPPORTED);
    const skipped: string[] = [];
    const summary = await runCollected(30_000, (name) => {
      const skip = unsupported.some((row) => name.endsWith(row));
      if (skip) skipped.push(name);
      return !skip;
    });
    return Response.json({ ...summary, skipped, reasons: UNSUPPORTED, stores });
  },
};
