import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { type Decision, Limit, MemoryStore } from '@sluice/core';
import { markSkipThrottle } from '@sluice/core/http';
import {
  type AdapterHarness,
  type AppSpec,
  describeAdapter,
  EPOCH,
  expectNoSecretInErrors,
  type Gate,
  type RouteSpec,
  routeId,
  type TestClient,
  userIdFor,
} from '@sluice/test-kit';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import request from 'supertest';
import { rateLimit, SkipThrottle, Throttle, throttle } from '../src/index.js';

/** The handler of a harness route: counts its runs, answers `{ ok: true, rateLimit }`. */
function counted(runs: Map<string, number>, id: string, gate?: Gate) {
  return async (ctx: Context) => {
    runs.set(id, (runs.get(id) ?? 0) + 1);
    if (gate !== undefined) await gate.wait();
    const status = ctx.get('x-status');
    if (status !== '') ctx.status = Number(status);
    ctx.body = { ok: true, rateLimit: ctx.state.rateLimit };
  };
}

/** `Authorization: Bearer <token>` → `ctx.state.user = { id }` (Koa's usual place, e.g. koa-passport). */
function bearerUser(spec: AppSpec): Middleware {
  return (ctx, next) => {
    const m = /^Bearer (.+)$/.exec(ctx.get('authorization'));
    if (m) ctx.state.user = { id: userIdFor(spec, m[1]!) };
    return next();
  };
}

/** Adds `route` to `router` (or to a router of its own with the mount as prefix, made and listed). */
function addRoute(router: Router, mounted: Router[], runs: Map<string, number>, route: RouteSpec) {
  let target = router;
  if (route.mount !== undefined) {
    target = new Router({ prefix: route.mount });
    mounted.push(target);
  }
  const handler = counted(runs, routeId(route), route.gate);
  const marked = route.skipThrottle ? markSkipThrottle(handler) : handler;
  const h = route.bound ? marked.bind(undefined) : marked;
  const verb = route.method === 'GET' ? 'get' : 'post';
  if (route.limit === false || route.limit === undefined) target[verb](route.path, h);
  else target[verb](route.path, throttle(route.limit, route.options), h);
}

async function listen(app: Koa): Promise<Server> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function client(server: Server, runs: Map<string, number>): TestClient {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = request(url);
  return {
    url,
    async request(method, path, headers = {}) {
      const verb = method === 'GET' ? 'get' : method === 'HEAD' ? 'head' : 'post';
      const res = await agent[verb](path).set(headers);
      const json = /^application\/(problem\+)?json/.test(String(res.headers['content-type']));
      return {
        status: res.status,
        headers: res.headers as Record<string, string>,
        body: json ? res.body : res.text,
      };
    },
    handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * The Koa harness, mounted the recommended way: routes with `limit: false` on a router placed
 * before the global limiter (so they never reach it), the global `rateLimit` with `app.use`
 * before the main router (route `'*'`), per-route limits as `throttle(limit, options)` in
 * the @koa/router route.
 */
const koaHarness: AdapterHarness = {
  name: 'koa',
  async start(spec: AppSpec) {
    const app = new Koa();
    app.proxy = spec.trustProxy !== undefined && spec.trustProxy !== false;
    if (spec.trustProxy === true) app.maxIpsCount = 1;
    app.silent = true;
    const runs = new Map<string, number>();
    const open = new Router();
    const router = new Router();
    const mounted: Router[] = [];
    for (const route of spec.routes) {
      addRoute(route.limit === false ? open : router, mounted, runs, route);
    }
    if (spec.bearerUser) app.use(bearerUser(spec));
    app.use(open.routes());
    if (spec.global) app.use(rateLimit(spec.global));
    app.use(router.routes());
    for (const r of mounted) app.use(r.routes());
    return client(await listen(app), runs);
  },
  async startOutOfReach(spec, route) {
    // The global limit on a router of its own; the route, with its throttle(), on another.
    const app = new Koa();
    app.silent = true;
    const runs = new Map<string, number>();
    const limited = new Router({ prefix: '/limited' });
    limited.use(rateLimit(spec.global));
    limited.get('/inside', counted(runs, 'GET /limited/inside'));
    const router = new Router();
    const mounted: Router[] = [];
    addRoute(router, mounted, runs, route);
    app.use(limited.routes()).use(router.routes());
    return client(await listen(app), runs);
  },
};

describeAdapter(koaHarness);

const ok = (ctx: Context) => {
  ctx.body = 'ok';
};

function base() {
  const time = { now: EPOCH };
  return { time, options: { store: new MemoryStore(), clock: () => time.now } };
}

async function withApp(app: Koa, fn: (agent: ReturnType<typeof request>) => Promise<void>) {
  const server = await listen(app);
  try {
    await fn(request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('@sluice/koa', () => {
  it('throttle() in a @koa/router route keys by METHOD + matched pattern, not the raw URL', async () => {
    const { options } = base();
    const keys: string[] = [];
    const app = new Koa();
    const router = new Router({ prefix: '/api' });
    const limit = throttle('throttle:2,1', {
      ...options,
      key: (req) => {
        keys.push(req.route);
        return req.route;
      },
    });
    router.get('/users/:id', limit, (ctx) => {
      ctx.body = 'ok';
    });
    app.use(router.routes());
    await withApp(app, async (agent) => {
      expect((await agent.get('/api/users/1')).status).toBe(200);
      expect((await agent.get('/api/users/2')).status).toBe(200);
      // Same pattern, different URL: one bucket.
      expect((await agent.get('/api/users/3')).status).toBe(429);
    });
    expect(keys).toEqual(['GET /api/users/:id', 'GET /api/users/:id', 'GET /api/users/:id']);
  });

  it("app.use(rateLimit()) before the router sees route '*': all routes share a bucket", async () => {
    const { options } = base();
    const routes: string[] = [];
    const app = new Koa();
    const router = new Router();
    router.get('/a', (ctx) => {
      ctx.body = 'a';
    });
    router.get('/b/:x', (ctx) => {
      ctx.body = 'b';
    });
    app.use(
      rateLimit({
        ...options,
        limit: 'throttle:2,1',
        skip: (req) => {
          routes.push(req.route);
          return false;
        },
      }),
    );
    app.use(router.routes());
    await withApp(app, async (agent) => {
      expect((await agent.get('/a')).status).toBe(200);
      expect((await agent.get('/b/1')).status).toBe(200);
      expect((await agent.get('/a')).status).toBe(429);
    });
    expect(routes).toEqual(['*', '*', '*']);
  });

  it('router.use(rateLimit()) is a global limit for every route of the router and honours @SkipThrottle() handlers', async () => {
    const { options } = base();
    const routes: string[] = [];
    class Health {
      @SkipThrottle()
      check(ctx: Context) {
        ctx.body = 'up';
      }
    }
    const app = new Koa();
    const router = new Router();
    router.use(
      rateLimit({
        ...options,
        limit: 'throttle:1,1',
        skip: (req) => {
          routes.push(req.route);
          return false;
        },
      }),
    );
    router.get('/health', new Health().check);
    router.get('/items/:id', markSkipThrottle(ok));
    router.post('/items/:id', (ctx) => {
      ctx.body = 'posted';
    });
    app.use(router.routes());
    await withApp(app, async (agent) => {
      for (let i = 0; i < 3; i++) {
        const r = await agent.get('/health');
        expect(r.status).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBeUndefined();
        expect((await agent.get('/items/1')).status).toBe(200);
      }
      expect((await agent.post('/items/1')).status).toBe(200);
      expect((await agent.post('/items/2')).status).toBe(429);
    });
    // A global limit: one bucket per client across the router's routes.
    expect(routes).toEqual(['*', '*']);
  });

  it('handler option replaces the 429 answer (headers already set, next() not called)', async () => {
    const { options } = base();
    let runs = 0;
    const app = new Koa();
    app.use(
      rateLimit({
        ...options,
        limit: 'throttle:1,1',
        handler: (ctx, verdict) => {
          ctx.status = 503;
          ctx.body = `busy, ${verdict.decision.retryAfterMs} ms`;
        },
      }),
    );
    app.use((ctx) => {
      runs++;
      ctx.body = 'ok';
    });
    await withApp(app, async (agent) => {
      await agent.get('/');
      const r = await agent.get('/');
      expect(r.status).toBe(503);
      expect(r.text).toBe('busy, 60000 ms');
      expect(r.headers['retry-after']).toBe('60');
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
    });
    expect(runs).toBe(1);
  });

  it('@Throttle on a controller method wraps the Koa handler, keeping `this`', async () => {
    const { options } = base();
    class Users {
      prefix = 'user';
      @Throttle('throttle:2,1', options)
      async show(ctx: Context, _next: Next) {
        ctx.body = { id: `${this.prefix}-${ctx.params.id}`, rateLimit: ctx.state.rateLimit };
      }
    }
    const users = new Users();
    const app = new Koa();
    const router = new Router();
    router.get('/users/:id', (ctx, next) => users.show(ctx, next));
    app.use(router.routes());
    await withApp(app, async (agent) => {
      const first = await agent.get('/users/7');
      expect(first.body).toMatchObject({ id: 'user-7', rateLimit: { remaining: 1, limit: 2 } });
      expect((await agent.get('/users/8')).status).toBe(200);
      const denied = await agent.get('/users/9');
      expect(denied.status).toBe(429);
      expect(denied.body.statusCode).toBe(429);
    });
  });

  it('@SkipThrottle() with @Throttle(): exempt from the router-level limiter, held to its own', async () => {
    const { options } = base();
    class Admin {
      @SkipThrottle()
      @Throttle('throttle:2,1', options)
      stats(ctx: Context) {
        const d: Decision | undefined = ctx.state.rateLimit; // typed by the DefaultState merge
        ctx.body = { remaining: d?.remaining };
      }
    }
    const app = new Koa();
    const router = new Router();
    router.use(rateLimit({ ...options, limit: 'throttle:1,1' }));
    router.get('/stats', new Admin().stats);
    app.use(router.routes());
    await withApp(app, async (agent) => {
      expect((await agent.get('/stats')).body).toEqual({ remaining: 1 });
      expect((await agent.get('/stats')).body).toEqual({ remaining: 0 });
      expect((await agent.get('/stats')).status).toBe(429);
    });
  });

  it('a global and a per-route limiter on one key charge a request once (the global one denies first)', async () => {
    const { options } = base();
    const shared = Limit.perMinute(2).named('shared').by('all');
    const app = new Koa();
    const router = new Router();
    router.get('/x', throttle(shared, options), ok);
    app.use(rateLimit({ ...options, limit: shared }));
    app.use(router.routes());
    await withApp(app, async (agent) => {
      expect((await agent.get('/x')).headers['x-ratelimit-remaining']).toBe('1');
      expect((await agent.get('/x')).headers['x-ratelimit-remaining']).toBe('0');
      const denied = await agent.get('/x');
      expect(denied.status).toBe(429);
      expect(denied.body).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Rate limit exceeded, retry in 30 seconds',
      });
    });
  });

  it("a message function's plain string is sent as text/plain, a JSON object as JSON", async () => {
    const { options } = base();
    const app = new Koa();
    const router = new Router();
    router.get('/text', throttle('throttle:1,1', { ...options, message: () => 'nope' }), ok);
    router.get('/json', throttle('throttle:1,1', { ...options, message: () => ({ a: 1 }) }), ok);
    app.use(router.routes());
    await withApp(app, async (agent) => {
      await agent.get('/text');
      const text = await agent.get('/text');
      expect([text.status, text.headers['content-type'], text.text]).toEqual([
        429,
        'text/plain; charset=utf-8',
        'nope',
      ]);
      await agent.get('/json');
      const json = await agent.get('/json');
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.body).toEqual({ a: 1 });
    });
  });

  it('errors thrown by user callbacks reach Koa error handling (500, app "error" event) instead of crashing', async () => {
    const { options } = base();
    const errors: Error[] = [];
    const app = new Koa();
    app.on('error', (e: Error) => errors.push(e));
    const router = new Router();
    router.get(
      '/sync',
      throttle('throttle:5,1', {
        ...options,
        key: () => {
          throw new Error('key boom');
        },
      }),
      ok,
    );
    router.get(
      '/limited',
      throttle('throttle:1,1', {
        ...options,
        onLimited: () => {
          throw new Error('onLimited boom');
        },
      }),
      ok,
    );
    const asyncStore = new MemoryStore();
    router.get(
      '/async',
      throttle('throttle:5,1', {
        clock: options.clock,
        // An asynchronous store: the verdict is a promise; the user callback throws after it.
        store: {
          consume: async (...a: Parameters<MemoryStore['consume']>) => asyncStore.consume(...a),
        } as never,
        message: () => {
          throw new Error('never reached');
        },
        skip: (req) => {
          if (req.headers['x-boom']) throw new Error('skip boom');
          return false;
        },
      }),
      ok,
    );
    app.use(router.routes());
    await withApp(app, async (agent) => {
      expect((await agent.get('/sync')).status).toBe(500);
      expect((await agent.get('/limited')).status).toBe(200);
      expect((await agent.get('/limited')).status).toBe(500);
      expect((await agent.get('/async')).status).toBe(200);
      expect((await agent.get('/async').set('x-boom', '1')).status).toBe(500);
      expect((await agent.get('/async')).status).toBe(200);
    });
    expect(errors.map((e) => e.message)).toEqual(['key boom', 'onLimited boom', 'skip boom']);
  });

  it('app.use(rateLimit) (not called) answers 500 with an error saying to call rateLimit(options)', async () => {
    const errors: Error[] = [];
    const app = new Koa();
    app.on('error', (e: Error) => errors.push(e));
    app.use(rateLimit as never);
    app.use(ok);
    await withApp(app, async (agent) => {
      expect((await agent.get('/a')).status).toBe(500);
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.name).toBe('SluiceConfigError');
    expect(errors[0]!.message).toContain('rateLimit was mounted itself');
    expect(errors[0]!.message).toContain('call rateLimit(options)');
  });

  it('invalid options throw SluiceConfigError at creation, naming the option', () => {
    expect(() => rateLimit({ limit: 'throttle:0,1' })).toThrow(/throttle:0,1/);
    expect(() => throttle('throttle:nope')).toThrow(/nope/);
    expect(() => rateLimit({ handler: 42 as never })).toThrow(/"handler"/);
  });

  it('no error text contains a secret from the value it rejects', () => {
    const valid = { limit: '1/s', handler: () => undefined, store: new MemoryStore(), prefix: 'p' };
    expectNoSecretInErrors(valid, (o) => rateLimit(o as never));
    expectNoSecretInErrors({ prefix: 'p' }, (o) => throttle('1/s', o as never));
  });

  it('an unknown option name is a SluiceConfigError saying what to write instead', () => {
    expect(() => rateLimit({ duration: 60_000 } as never)).toThrow(
      /unknown option "duration" in rateLimit\(\): .*limit: '100\/min'/,
    );
    expect(() => rateLimit({ duration: 60_000, max: 5 } as never)).toThrow(
      /unknown options in rateLimit\(\): "duration" \(.*limit: '100\/min'.*\); "max" \(/,
    );
    expect(() => throttle('5/s', { hadler: () => undefined } as never)).toThrow(
      'sluice: unknown option "hadler" in throttle(): did you mean "handler"?',
    );
    expect(() => Throttle('5/s', { keyGenerator: () => 'k' } as never)).toThrow(
      /"keyGenerator".*write key/,
    );
    expect(() => rateLimit({ handler: () => undefined, limit: '5/s' })).not.toThrow();
  });

  it("keys by Koa's ctx.ip: the socket address, X-Forwarded-For only with app.proxy, and an ip set before", async () => {
    const seen: string[] = [];
    const build = (proxy: boolean, setIp: boolean) => {
      const app = new Koa();
      app.proxy = proxy;
      if (setIp) {
        app.use((ctx, next) => {
          const ip = ctx.get('x-test-ip');
          if (ip !== '') ctx.request.ip = ip;
          return next();
        });
      }
      app.use(
        rateLimit({
          ...base().options,
          key: (req) => {
            seen.push(req.ip);
            return req.ip;
          },
        }),
      );
      app.use(ok);
      return app;
    };
    const xff = { 'X-Forwarded-For': '198.51.100.7' };
    await withApp(build(false, false), async (agent) => {
      expect((await agent.get('/').set(xff)).status).toBe(200);
    });
    await withApp(build(true, false), async (agent) => {
      expect((await agent.get('/').set(xff)).status).toBe(200);
    });
    await withApp(build(false, true), async (agent) => {
      expect((await agent.get('/').set({ ...xff, 'x-test-ip': '203.0.113.9' })).status).toBe(200);
      expect((await agent.get('/').set(xff)).status).toBe(200);
    });
    expect(seen).toEqual(['127.0.0.1', '198.51.100.7', '203.0.113.9', '127.0.0.1']);
  });

  it('allowed requests with a synchronous store return no extra promise from the middleware', () => {
    const mw = rateLimit({ store: new MemoryStore(), limit: 'throttle:1,1' });
    const ctx = {
      req: { method: 'GET', headers: {} },
      res: { setHeader: () => {} },
      ip: '127.0.0.1',
      app: { proxy: true },
      request: {},
      state: {},
    } as unknown as Context;
    const nextResult = Promise.resolve('from next');
    expect(mw(ctx, () => nextResult)).toBe(nextResult);
    expect((ctx.state as { rateLimit?: { remaining: number } }).rateLimit?.remaining).toBe(0);
  });
});

describe('@sluice/koa: decorators on classes', () => {
  type Legacy = (target: abstract new () => unknown) => void;

  it('@SkipThrottle() and @Throttle() on a class apply to every method, in the TC39 and legacy forms', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    @SkipThrottle()
    class Probes {
      async ready(ctx: Context) {
        ctx.body = 'ready';
      }
      async started(ctx: Context) {
        ctx.body = 'started';
      }
    }
    class LegacyProbes {
      async up(ctx: Context) {
        ctx.body = 'up';
      }
    }
    (SkipThrottle() as unknown as Legacy)(LegacyProbes);
    @Throttle('throttle:2,1', { store, clock })
    class Reports {
      async daily(ctx: Context) {
        ctx.body = 'daily';
      }
    }
    class LegacyReports {
      async weekly(ctx: Context) {
        ctx.body = 'weekly';
      }
    }
    (Throttle('throttle:1,1', { store, clock }) as unknown as Legacy)(LegacyReports);
    const probes = new Probes();
    const legacy = new LegacyProbes();
    const reports = new Reports();
    const legacyReports = new LegacyReports();
    const app = new Koa();
    const router = new Router();
    router.use(rateLimit({ limit: 'throttle:1,1', store, clock }));
    router.get('/ready', probes.ready.bind(probes));
    router.get('/started', probes.started);
    router.get('/up', legacy.up.bind(legacy));
    // The reports on a router of their own, with no global limit: only the class's applies.
    const open = new Router();
    open.get('/daily', reports.daily.bind(reports));
    open.get('/weekly', legacyReports.weekly.bind(legacyReports));
    app.use(router.routes());
    app.use(open.routes());
    const server = createServer(app.callback());
    const get = async (path: string) => (await request(server).get(path)).status;
    for (const path of ['/ready', '/started', '/up', '/ready', '/started', '/up']) {
      expect([path, await get(path)]).toEqual([path, 200]);
    }
    expect([await get('/daily'), await get('/daily'), await get('/daily')]).toEqual([
      200, 200, 429,
    ]);
    expect([await get('/weekly'), await get('/weekly')]).toEqual([200, 429]);
  });
});
