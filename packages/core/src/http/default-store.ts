import { MemoryStore } from '../memory-store.js';

/**
 * The default store of each application instance (DESIGN §5): limiters given no `store`
 * share their application's `MemoryStore` (one per Express app, Fastify root instance or
 * Koa app), and two applications in one process never share one, so a test that builds a
 * fresh app gets fresh counters. Held weakly: an application that is dropped drops its store.
 */
const stores = new WeakMap<object, MemoryStore>();

/** For requests of no known application (an `HttpLimiter` used on its own). */
const processStore = new MemoryStore();

/** The last application asked about and its store: most processes have one application. */
let lastApp: object | undefined;
let lastStore: MemoryStore = processStore;

/** The default store of `app` (made on first use); the process's own when `app` is undefined. */
export function defaultStoreOf(app: object | undefined): MemoryStore {
  if (app === lastApp) return lastStore;
  let store = processStore;
  if (app !== undefined) {
    store = stores.get(app) ?? new MemoryStore();
    stores.set(app, store);
  }
  lastApp = app;
  lastStore = store;
  return store;
}
