// The subjects of bench:core's every-peer section (measure/core-peers.ts): sluice and each peer's
// memory store, built never to deny and driven as its middleware drives it.
import { createRequire } from 'node:module';
import { MemoryStore, RateLimiter } from '@sluice/core';
import { MemoryStore as ErlMemoryStore, type Options as ErlOptions } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { GCRA_CONFIG, gcraAlgo, RESIDENT_CONFIG, residentAlgo } from '../measure/common.js';
import { BATCH, check, loopLimiter, loopRlf, timed } from '../measure/core-loops.js';

/** Every peer's limit: never reached in a run. */
const LIMIT = 1e12;
/** Every peer's window, ms. */
const WINDOW_MS = 60_000;

// @fastify/rate-limit exports neither its LocalStore nor koa-ratelimit its memory limiter (nor
// types for them): both are loaded from their files, typed by the few members used here.
const require = createRequire(import.meta.url);

/** @fastify/rate-limit 11 store/LocalStore.js: a toad-cache LruMap of `cache` keys. */
interface FastifyLocalStore {
  incr(
    key: string,
    cb: (err: Error | null, res: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void;
  readonly lru: { readonly size: number };
}
const FastifyLocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache: number,
) => FastifyLocalStore;

/** koa-ratelimit 6 limiter/memory.js: one object per request, state in the shared `db` Map. */
interface KoaEntry {
  remaining: number;
}
const KoaMemoryLimiter = require('koa-ratelimit/limiter/memory.js') as new (options: {
  id: string;
  db: Map<string, KoaEntry>;
  max: number;
  duration: number;
}) => { get(): Promise<KoaEntry> };

// ---------------------------------------------------------------------------------------
// One call per peer, as its middleware makes it, and its denial check.

/** The @fastify/rate-limit plugin's call: `incr` wrapped in a promise, awaited (index.js). */
function fastifyIncr(store: FastifyLocalStore, key: string): Promise<{ current: number }> {
  return new Promise((resolve, reject) => {
    store.incr(key, (err, res) => (err ? reject(err) : resolve(res)), WINDOW_MS, LIMIT);
  });
}

/** koa-ratelimit's middleware call: a limiter for this id over the shared Map, then `get()`. */
const koaGet = (db: Map<string, KoaEntry>, key: string): Promise<KoaEntry> =>
  new KoaMemoryLimiter({ id: key, db, max: LIMIT, duration: WINDOW_MS }).get();

function denied(peer: string): never {
  throw new Error(`${peer} denied a request: the bench limits are wrong`);
}

// Measurement loops: one per API so every call site stays monomorphic.

function loopErl(store: ErlMemoryStore, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) {
      // The middleware denies when totalHits > limit.
      if ((await store.increment(keys[i]!)).totalHits > LIMIT) denied('express-rate-limit');
      if (++i === n) i = 0;
    }
  });
}

function loopFastify(store: FastifyLocalStore, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) {
      // The plugin denies when current > max.
      if ((await fastifyIncr(store, keys[i]!)).current > LIMIT) denied('@fastify/rate-limit');
      if (++i === n) i = 0;
    }
  });
}

function loopKoa(db: Map<string, KoaEntry>, keys: string[], ms: number): Promise<number> {
  const n = keys.length;
  let i = 0;
  return timed(ms, async () => {
    for (let j = 0; j < BATCH; j++) {
      // The middleware denies when remaining is 0.
      if ((await koaGet(db, keys[i]!)).remaining <= 0) denied('koa-ratelimit');
      if (++i === n) i = 0;
    }
  });
}

// ---------------------------------------------------------------------------------------
// The subjects.

/** One limiter, built never to deny, bound to its own loop. */
export interface Instance {
  /** Decisions/s over `keys` round robin for ~`ms`, each awaited before the next. */
  rate(keys: string[], ms: number): Promise<number>;
  /** One decision (filling the heap measure), checked like the loop's. */
  consume(key: string): Promise<void>;
  /** Throws unless the store holds `user:0` … `user:<n-1>` (counted, or spot-checked). */
  verify(n: number): Promise<void>;
  /** Lets go of what its timers would keep alive past the measure; `keys`: those consumed. */
  dispose(keys: Iterable<string>): Promise<void>;
}

export interface Subject {
  name: string;
  /** The measured call and how the limiter is built, as the report prints them. */
  call: string;
  /** How `verify` checks that all keys are held. */
  counted: string;
  /** `maxKeys`: the most keys it must hold; `resident`: for the heap measure (sluice's T = 1 h). */
  create(maxKeys: number, resident: boolean): Instance;
}

function expectCount(name: string, held: number, n: number): void {
  if (held !== n) throw new Error(`${name}: ${held} keys held after inserting ${n}`);
}

const nothing = async () => {};

export const SUBJECTS: Subject[] = [
  {
    name: 'sluice',
    call: `await limiter.consume(key), limiter = new RateLimiter({ algorithm: ${GCRA_CONFIG}, store: new MemoryStore({ maxKeys: keys }) }); heap: ${RESIDENT_CONFIG} and maxKeys = the key count`,
    counted: 'store.size (live keys)',
    create(maxKeys, resident) {
      const store = new MemoryStore({ maxKeys });
      const limiter = new RateLimiter({
        algorithm: resident ? residentAlgo() : gcraAlgo(),
        store,
      });
      return {
        rate: (keys, ms) => loopLimiter(limiter, keys, ms),
        consume: async (key) => check(await limiter.consume(key)),
        verify: async (n) => expectCount('sluice', store.size, n),
        dispose: nothing,
      };
    },
  },
  {
    name: 'rate-limiter-flexible',
    call: `await limiter.consume(key), limiter = new RateLimiterMemory({ points: ${LIMIT}, duration: 60 }) (rejects when over the limit)`,
    counted: 'no public count: limiter.get() of the first and last key',
    create() {
      const limiter = new RateLimiterMemory({ points: LIMIT, duration: WINDOW_MS / 1000 });
      return {
        rate: (keys, ms) => loopRlf(limiter, keys, ms),
        consume: async (key) => {
          await limiter.consume(key);
        },
        async verify(n) {
          for (const key of ['user:0', `user:${n - 1}`])
            if ((await limiter.get(key)) === null) throw new Error(`RLF lost ${key}`);
        },
        // Each key has a 60 s timer holding the store; delete clears it.
        async dispose(keys) {
          for (const key of keys) await limiter.delete(key);
        },
      };
    },
  },
  {
    name: 'express-rate-limit',
    call: `await store.increment(key), store = new MemoryStore(); store.init({ windowMs: ${WINDOW_MS} }) (denied if totalHits > ${LIMIT})`,
    counted: 'store.current.size + store.previous.size',
    create() {
      const store = new ErlMemoryStore();
      // init reads windowMs only (and starts the store's unref'd clean-up interval).
      store.init({ windowMs: WINDOW_MS } as ErlOptions);
      return {
        rate: (keys, ms) => loopErl(store, keys, ms),
        consume: async (key) => {
          if ((await store.increment(key)).totalHits > LIMIT) denied('express-rate-limit');
        },
        verify: async (n) =>
          expectCount('express-rate-limit', store.current.size + store.previous.size, n),
        // The interval holds the store.
        dispose: async () => store.shutdown(),
      };
    },
  },
  {
    name: '@fastify/rate-limit',
    call: `await new Promise((resolve, reject) => store.incr(key, (err, res) => err ? reject(err) : resolve(res), ${WINDOW_MS}, ${LIMIT})), as the plugin awaits it; store = new LocalStore(false, false, keys) from @fastify/rate-limit/store/LocalStore.js (cache = keys) (denied if current > max)`,
    counted: 'store.lru.size',
    create(maxKeys) {
      // The plugin's defaults (no continueExceeding, no exponentialBackoff); its `cache`
      // option (default 5000) sized so the LRU evicts nothing.
      const store = new FastifyLocalStore(false, false, maxKeys);
      return {
        rate: (keys, ms) => loopFastify(store, keys, ms),
        consume: async (key) => {
          if ((await fastifyIncr(store, key)).current > LIMIT) denied('@fastify/rate-limit');
        },
        verify: async (n) => expectCount('@fastify/rate-limit', store.lru.size, n),
        dispose: nothing,
      };
    },
  },
  {
    name: 'koa-ratelimit',
    call: `await new MemoryLimiter({ id: key, db, max: ${LIMIT}, duration: ${WINDOW_MS} }).get(), MemoryLimiter from koa-ratelimit/limiter/memory.js, db one shared Map (the middleware builds one per request from its options) (denied if remaining is 0)`,
    counted: 'db.size',
    create() {
      const db = new Map<string, KoaEntry>();
      return {
        rate: (keys, ms) => loopKoa(db, keys, ms),
        consume: async (key) => {
          if ((await koaGet(db, key)).remaining <= 0) denied('koa-ratelimit');
        },
        verify: async (n) => expectCount('koa-ratelimit', db.size, n),
        dispose: nothing,
      };
    },
  },
];
