import { processGlobal } from '../../common/process-global.js';
import { MemoryStore } from '../../stores/memory-store.js';

/**
 * The default stores: each application instance's (limiters given no `store` share their
 * application's `MemoryStore`: one per Express app, Fastify root instance or Koa app, and
 * two applications in one process never share one, so a test that builds a fresh app gets
 * fresh counters), held weakly (an application that is dropped drops its store), and the
 * process's own. One set per process, whatever mix of the ESM and CommonJS builds loads
 * them (see `processGlobal`): an app limited through both builds has one store.
 */
const defaults = processGlobal('defaultStores', () => ({
  stores: new WeakMap<object, MemoryStore>(),
  /** For requests of no known application (an `HttpLimiter` used on its own). */
  process: new MemoryStore(),
}));

/** The last application asked about and its store: most processes have one application. */
let lastApp: object | undefined;
let lastStore: MemoryStore = defaults.process;

/**
 * The default store of `app` (made on first use); the process's own when `app` is undefined.
 *
 * @param app - the application instance (Express app, Fastify root instance, Koa app).
 * @returns its `MemoryStore` (`maxKeys` 100 000).
 * @example
 * ```ts
 * const store = defaultStoreOf(req.app); // the same store for every request of this app
 * ```
 */
export function defaultStoreOf(app: object | undefined): MemoryStore {
  if (app === lastApp) return lastStore;
  let store = defaults.process;
  if (app !== undefined) {
    store = defaults.stores.get(app) ?? new MemoryStore();
    defaults.stores.set(app, store);
  }
  lastApp = app;
  lastStore = store;
  return store;
}
