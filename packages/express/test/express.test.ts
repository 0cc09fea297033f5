import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { type Decision, Limit, MemoryStore, SluiceConfigError, type Store } from '@sluice/core';
import { type HttpVerdict, markSkipThrottle } from '@sluice/core/http';
import {
  type AdapterHarness,
  type AppSpec,
  describeAdapter,
  EPOCH,
  expectNoSecretInErrors,
  type RouteSpec,
  routeId,
  type TestClient,
  type TestResponse,
  userIdFor,
} from '@sluice/test-kit';
import express, { type NextFunction, type Request, type Response } from 'express';
import request from 'supertest';
import { rateLimit, SkipThrottle, Throttle, throttle } from '../src/index.js';

async function listen(app: express.Express): Promise<Server> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function get(
  server: Server,
  path: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'POST' | 'HEAD' = 'GET',
): Promise<TestResponse> {
  const verb = method === 'GET' ? 'get' : method === 'HEAD' ? 'head' : 'post';
  const res = await request(server)[verb](path).set(headers);
  return {
    status: res.status,
    headers: res.headers as Record<string, string>,
    body: /json/.test(res.type) ? res.body : res.text,
  };
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((e) => (e ? reject(e) : resolve()));
    (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}

/** Express error handler that answers 500 `{ caught: message }`. */
function catchErrors(app: express.Express): void {
  app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ caught: err.message });
  });
}

/** The handler of a harness route: counts its runs, answers `{ ok: true, rateLimit }`. */
function counted(runs: Map<string, number>, route: RouteSpec) {
  const id = routeId(route);
  const gate = route.gate;
  const answer = (req: Request, res: Response) => {
    const status = req.headers['x-status'];
    if (typeof status === 'string') res.status(Number(status));
    res.json({ ok: true, rateLimit: req.rateLimit });
  };
  const handler = (req: Request, res: Response) => {
    runs.set(id, (runs.get(id) ?? 0) + 1);
    if (gate === undefined) answer(req, res);
    else return gate.wait().then(() => answer(req, res));
  };
  const marked = route.skipThrottle ? markSkipThrottle(handler) : handler;
  return route.bound ? marked.bind(undefined) : marked;
}

/** Registers `route` on `target` (its own router when it has a mount pattern). */
function register(app: express.Express, runs: Map<string, number>, route: RouteSpec) {
  const target = route.mount === undefined ? app : express.Router({ mergeParams: true });
  const method = route.method === 'GET' ? 'get' : 'post';
  const handler = counted(runs, route);
  if (route.limit === undefined || route.limit === false) target[method](route.path, handler);
  else target[method](route.path, throttle(route.limit, route.options), handler);
  if (route.mount !== undefined) app.use(route.mount, target as express.Router);
}

/** Sets `req.user = { id }` from `Authorization: Bearer <token>` (Passport's place). */
function authenticate(app: express.Express, spec: AppSpec): void {
  app.use((req, _res, next) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (m) (req as Request & { user?: { id: unknown } }).user = { id: userIdFor(spec, m[1]!) };
    next();
  });
}

function clientOf(server: Server, runs: Map<string, number>): TestClient {
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    request: (method, path, headers) => get(server, path, headers, method),
    handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
    close: () => close(server),
  };
}

/**
 * The Express harness. `limit: false` uses Express's mounting order: opted-out routes are
 * registered before `app.use(rateLimit(global))`, so requests to them never reach it.
 */
const expressHarness: AdapterHarness = {
  name: 'express',
  async start(spec: AppSpec): Promise<TestClient> {
    const app = express();
    if (spec.trustProxy) app.set('trust proxy', spec.trustProxy === 'all' ? true : 'loopback');
    if (spec.bearerUser) authenticate(app, spec);
    const runs = new Map<string, number>();
    for (const route of spec.routes) if (route.limit === false) register(app, runs, route);
    if (spec.global) app.use(rateLimit(spec.global));
    for (const route of spec.routes) if (route.limit !== false) register(app, runs, route);
    return clientOf(await listen(app), runs);
  },
  async startOutOfReach(spec, route) {
    // The global limit on a router of its own; the route, with its throttle(), beside it.
    const app = express();
    const runs = new Map<string, number>();
    const limited = express.Router();
    limited.use(rateLimit(spec.global));
    app.use('/limited', limited);
    register(app, runs, route);
    return clientOf(await listen(app), runs);
  },
};

describeAdapter(expressHarness);

describe('@sluice/express', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await close(server);
    server = undefined;
  });
  const ok = (req: Request, res: Response) => {
    res.json({ ok: true, rateLimit: req.rateLimit });
  };
  const clock = () => EPOCH;

  it('exposes req.rateLimit without adding an own property to req (Express 5 hidden classes)', async () => {
    const app = express();
    app.use(rateLimit({ limit: 'throttle:5,1', store: new MemoryStore(), clock }));
    app.get('/', (req, res) => {
      const shown = req.rateLimit;
      req.rateLimit = { ...shown!, remaining: -7 };
      res.json({ own: Object.hasOwn(req, 'rateLimit'), shown, assigned: req.rateLimit });
    });
    server = await listen(app);
    const first = (await get(server, '/')).body as { own: boolean; shown: Decision };
    expect(first).toMatchObject({ own: false, shown: { limit: 5, remaining: 4 } });
    expect(first).toMatchObject({ assigned: { remaining: -7 } });
    // Each request sees its own decision, never the previous request's.
    expect((await get(server, '/')).body).toMatchObject({ shown: { remaining: 3 } });
  });

  it('sets headers through a setHeader another middleware installed on res (as on-headers-style wrappers do)', async () => {
    const app = express();
    const seen: string[] = [];
    app.use((_req, res, next) => {
      const original = res.setHeader;
      res.setHeader = function (
        this: Response,
        name: string,
        value: string | number | readonly string[],
      ) {
        seen.push(name);
        return original.call(this, name, value);
      } as typeof res.setHeader;
      next();
    });
    app.use(rateLimit({ limit: 'throttle:5,1', store: new MemoryStore(), clock }));
    app.get('/', ok);
    server = await listen(app);
    const res = await get(server, '/');
    expect(res.headers['x-ratelimit-remaining']).toBe('4');
    expect(seen).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
  });

  it('req.rateLimit set in a sub-app is still seen by the parent app', async () => {
    const app = express();
    const sub = express();
    sub.use(rateLimit({ limit: 'throttle:5,1', store: new MemoryStore(), clock }));
    app.use('/sub', sub);
    app.get('/sub/x', ok);
    server = await listen(app);
    expect((await get(server, '/sub/x')).body).toMatchObject({ rateLimit: { remaining: 4 } });
  });

  it('keys a route by req.baseUrl + req.route.path under a Router, never the raw URL', async () => {
    const store = new MemoryStore();
    const app = express();
    const router = express.Router();
    router.get('/users/:id', throttle('throttle:1,1', { store, clock }), ok);
    app.use('/api', router);
    server = await listen(app);
    expect((await get(server, '/api/users/1')).status).toBe(200);
    expect((await get(server, '/api/users/2')).status).toBe(429);
    expect(store.inspect('sl:1-per-60000ms:GET /api/users/:id:ip:127.0.0.1')).toBeDefined();
    expect(store.size).toBe(1);
  });

  it("uses route '*' before routing: every route shares the subject's bucket", async () => {
    const store = new MemoryStore();
    const app = express();
    app.use(rateLimit({ limit: 'throttle:2,1', store, clock }));
    app.get('/a', ok);
    app.get('/b', ok);
    server = await listen(app);
    expect((await get(server, '/a')).status).toBe(200);
    expect((await get(server, '/b')).status).toBe(200);
    expect((await get(server, '/a')).status).toBe(429);
    expect(store.inspect('sl:2-per-60000ms:*:ip:127.0.0.1')).toBeDefined();
  });

  it('a per-route throttle adds to the global limit', async () => {
    const store = new MemoryStore();
    const app = express();
    app.use(rateLimit({ limit: 'throttle:3,1', store, clock }));
    app.get('/wide', throttle('throttle:10,1', { store, clock }), ok);
    server = await listen(app);
    // The global 3/min ('*') denies the 4th request although the route allows 10.
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(server, '/wide')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a request reaching two limiters with the same key is charged once', async () => {
    const store = new MemoryStore();
    const app = express();
    const key = () => 'shared';
    app.use(rateLimit({ limit: 'throttle:3,1', store, clock, key }));
    app.get('/once', throttle('throttle:3,1', { store, clock, key }), ok);
    server = await listen(app);
    const remaining = [];
    for (let i = 0; i < 4; i++) {
      const r = await get(server, '/once');
      remaining.push(
        r.status === 200 ? (r.body as { rateLimit: Decision }).rateLimit.remaining : r.status,
      );
    }
    expect(remaining).toEqual([2, 1, 0, 429]);
  });

  it('handler option replaces the denied response; headers are already set', async () => {
    const app = express();
    const seen: HttpVerdict[] = [];
    app.use(
      rateLimit({
        limit: 'throttle:1,1',
        store: new MemoryStore(),
        clock,
        handler: (req, res, _next, verdict) => {
          seen.push(verdict);
          res.status(418).json({ teapot: true, wait: req.rateLimit?.retryAfterMs });
        },
      }),
    );
    app.get('/a', ok);
    server = await listen(app);
    await get(server, '/a');
    const denied = await get(server, '/a');
    expect(denied.status).toBe(418);
    expect(denied.body).toEqual({ teapot: true, wait: 60_000 });
    expect(denied.headers['retry-after']).toBe('60');
    expect(denied.headers['x-ratelimit-remaining']).toBe('0');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.statusCode).toBe(429);
  });

  it("an async handler's rejection reaches the Express error handler (no unhandled rejection, no hung request)", async () => {
    const app = express();
    app.use(
      rateLimit({
        limit: 'throttle:1,1',
        store: new MemoryStore(),
        clock,
        handler: async () => {
          throw new Error('handler failed');
        },
      }),
    );
    app.get('/a', ok);
    catchErrors(app);
    server = await listen(app);
    expect((await get(server, '/a')).status).toBe(200);
    const denied = await get(server, '/a');
    expect(denied.status).toBe(500);
    expect(denied.body).toEqual({ caught: 'handler failed' });
  });

  it('a message function returning a string is sent as is (not labelled JSON)', async () => {
    const app = express();
    app.use(
      rateLimit({ limit: 'throttle:1,1', store: new MemoryStore(), message: () => 'slow down' }),
    );
    app.get('/a', ok);
    server = await listen(app);
    await get(server, '/a');
    const denied = await get(server, '/a');
    expect(denied.status).toBe(429);
    expect(denied.body).toBe('slow down');
    expect(denied.headers['content-type']).not.toMatch(/json/);
  });

  it('@Throttle limits a controller method; @SkipThrottle exempts a handler from a route-level limiter', async () => {
    const store = new MemoryStore();
    class Users {
      shown = 0;
      @Throttle('throttle:2,1', { store, clock })
      show(req: Request, res: Response) {
        this.shown++;
        res.json({ id: req.params.id, rateLimit: req.rateLimit });
      }
      @Throttle('throttle:5,1', { store, clock })
      async fail(_req: Request, _res: Response) {
        throw new Error('async failure');
      }
      @SkipThrottle()
      health(_req: Request, res: Response) {
        res.json({ healthy: true });
      }
    }
    const users = new Users();
    const limiter = rateLimit({ limit: 'throttle:1,1', store, clock });
    const app = express();
    app.get('/users/:id', users.show.bind(users));
    app.get('/fail', users.fail.bind(users));
    app.get('/health', limiter, users.health);
    app.get('/other', limiter, ok);
    catchErrors(app);
    server = await listen(app);
    const shows = [];
    for (let i = 0; i < 3; i++) shows.push(await get(server, `/users/${i}`));
    expect(shows.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(shows[0]!.body).toMatchObject({ id: '0', rateLimit: { limit: 2, remaining: 1 } });
    expect(users.shown).toBe(2);
    expect(store.inspect('sl:2-per-60000ms:GET /users/:id:ip:127.0.0.1')).toBeDefined();
    expect(await get(server, '/fail')).toMatchObject({
      status: 500,
      body: { caught: 'async failure' },
    });
    for (let i = 0; i < 3; i++) expect((await get(server, '/health')).status).toBe(200);
    expect((await get(server, '/other')).status).toBe(200);
    expect((await get(server, '/other')).status).toBe(429);
  });

  it('app.use(rateLimit) (not called) answers every request 500 saying to call rateLimit(options)', async () => {
    const app = express();
    app.use(rateLimit as never);
    app.get('/a', throttle as never, ok);
    catchErrors(app);
    server = await listen(app);
    const answer = await get(server, '/a');
    expect(answer.status).toBe(500);
    const caught = (answer.body as { caught: string }).caught;
    expect(caught).toContain('rateLimit was mounted itself');
    expect(caught).toContain('call rateLimit(options)');
    expect(caught).not.toContain('_events');
  });

  it('throttle mounted itself says to call throttle(limit, options)', async () => {
    const app = express();
    app.get('/a', throttle as never, ok);
    catchErrors(app);
    server = await listen(app);
    const caught = ((await get(server, '/a')).body as { caught: string }).caught;
    expect(caught).toContain('call throttle(limit, options)');
  });

  it('errors thrown by user callbacks reach the Express error handler', async () => {
    const boom = (what: string) => () => {
      throw new Error(`${what} failed`);
    };
    const app = express();
    const store = new MemoryStore();
    app.get('/key', rateLimit({ store, key: boom('key') }), ok);
    app.get('/skip', rateLimit({ store, skip: boom('skip') }), ok);
    app.get('/user', rateLimit({ store, user: boom('user') }), ok);
    // Per-route limits: two global ones with the same limit would share one bucket.
    app.get('/on-limited', throttle('throttle:1,1', { store, onLimited: boom('onLimited') }), ok);
    app.get('/handler', throttle('throttle:1,1', { store, handler: boom('handler') }), ok);
    catchErrors(app);
    server = await listen(app);
    for (const what of ['key', 'skip', 'user']) {
      expect(await get(server, `/${what}`)).toMatchObject({
        status: 500,
        body: { caught: `${what} failed` },
      });
    }
    expect((await get(server, '/on-limited')).status).toBe(200);
    expect((await get(server, '/on-limited')).body).toEqual({ caught: 'onLimited failed' });
    expect((await get(server, '/handler')).status).toBe(200);
    expect((await get(server, '/handler')).body).toEqual({ caught: 'handler failed' });
  });

  it('works with an asynchronous store, including its errors under onStoreError: deny', async () => {
    const memory = new MemoryStore();
    let failing = false;
    const asyncStore: Store = {
      consume: async (key, algorithm, cost, now) => {
        if (failing) throw new Error('store down');
        return memory.consume(key, algorithm, cost, now);
      },
      reset: async (key) => memory.reset(key),
    };
    const app = express();
    app.use(
      rateLimit({
        limit: 'throttle:1,1',
        store: asyncStore,
        clock,
        onStoreError: 'deny',
        logger: { warn: () => {} },
      }),
    );
    app.get('/a', ok);
    server = await listen(app);
    const first = await get(server, '/a');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ rateLimit: { remaining: 0 } });
    expect((await get(server, '/a')).status).toBe(429);
    failing = true;
    expect((await get(server, '/a', { 'x-forwarded-for': '9.9.9.9' })).status).toBe(429);
  });

  it('decides synchronously with a MemoryStore (next() is called before the middleware returns)', () => {
    const middleware = rateLimit({ limit: Limit.perMinute(1), store: new MemoryStore() });
    const req = {
      method: 'GET',
      baseUrl: '',
      ip: '10.0.0.1',
      headers: {},
      socket: {},
    } as unknown as Request;
    const headers: Record<string, string> = {};
    const res = { setHeader: (n: string, v: string) => (headers[n] = v) } as unknown as Response;
    const next = jest.fn();
    middleware(req, res, next);
    expect(next).toHaveBeenCalledWith();
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(req.rateLimit).toMatchObject({ allowed: true, limit: 1 });
  });

  it('throws SluiceConfigError for invalid options at creation', () => {
    expect(() => rateLimit({ limit: 'throttle:nope' })).toThrow(SluiceConfigError);
    expect(() => throttle('throttle:0,1')).toThrow(SluiceConfigError);
    expect(() => throttle(false as never)).toThrow(/register the route before/);
    expect(() => rateLimit({ handler: 'x' as never })).toThrow(/"handler"/);
    expect(() => rateLimit({ headers: 'draft-12' as never })).toThrow(/"headers"/);
    expect(() => Throttle('60/fortnight')).toThrow(SluiceConfigError);
  });

  it('no error text contains a secret from the value it rejects', () => {
    const valid = { limit: '1/s', handler: () => undefined, store: new MemoryStore(), prefix: 'p' };
    expectNoSecretInErrors(valid, (o) => rateLimit(o as never));
    expectNoSecretInErrors({ prefix: 'p' }, (o) => throttle('1/s', o as never));
  });

  it('an unknown option name is a SluiceConfigError saying what to write instead', () => {
    expect(() => rateLimit({ windowMs: 60_000 } as never)).toThrow(
      /unknown option "windowMs" in rateLimit\(\): .*limit: 'throttle:100,15'/,
    );
    // Several unknown names: one message naming each.
    expect(() => rateLimit({ windowMs: 60_000, max: 5 } as never)).toThrow(
      /unknown options in rateLimit\(\): "windowMs" \(.*limit: 'throttle:100,15'.*\); "max" \(/,
    );
    expect(() => rateLimit({ keyGenerator: () => 'k' } as never)).toThrow(
      /unknown option "keyGenerator".*write key: \(req\) => string/,
    );
    expect(() => throttle('5/s', { handlr: () => undefined } as never)).toThrow(
      'sluice: unknown option "handlr" in throttle(): did you mean "handler"?',
    );
    expect(() => Throttle('5/s', { limti: 1 } as never)).toThrow(/did you mean "limit"\?/);
    expect(() => rateLimit({ handler: () => undefined, limit: '5/s' })).not.toThrow();
  });
});

describe('@sluice/express: decorators on classes', () => {
  type Legacy = (target: abstract new () => unknown) => void;

  it('@SkipThrottle() and @Throttle() on a class apply to every method, in the TC39 and legacy forms', async () => {
    const store = new MemoryStore();
    const clock = () => EPOCH;
    @SkipThrottle()
    class Probes {
      live(_req: Request, res: Response) {
        res.send('live');
      }
      ready(_req: Request, res: Response) {
        res.send('ready');
      }
    }
    class LegacyProbes {
      up(_req: Request, res: Response) {
        res.send('up');
      }
    }
    (SkipThrottle() as unknown as Legacy)(LegacyProbes);
    @Throttle('throttle:2,1', { store, clock })
    class Reports {
      daily(_req: Request, res: Response) {
        res.send('daily');
      }
    }
    class LegacyReports {
      weekly(_req: Request, res: Response) {
        res.send('weekly');
      }
    }
    (Throttle('throttle:1,1', { store, clock }) as unknown as Legacy)(LegacyReports);
    const probes = new Probes();
    const legacy = new LegacyProbes();
    const reports = new Reports();
    const legacyReports = new LegacyReports();
    const app = express();
    // The reports before the global limit: only the class's limit applies to them.
    app.get('/daily', reports.daily.bind(reports));
    app.get('/weekly', legacyReports.weekly.bind(legacyReports));
    app.use(rateLimit({ limit: 'throttle:1,1', store, clock }));
    app.get('/live', probes.live.bind(probes));
    app.get('/ready', probes.ready);
    app.get('/up', legacy.up.bind(legacy));
    const server = await listen(app);
    try {
      for (const path of ['/live', '/ready', '/up', '/live', '/ready', '/up']) {
        expect([path, (await get(server, path)).status]).toEqual([path, 200]);
      }
      const daily = [];
      for (let i = 0; i < 3; i++) daily.push((await get(server, '/daily')).status);
      expect(daily).toEqual([200, 200, 429]);
      const weekly = [(await get(server, '/weekly')).status, (await get(server, '/weekly')).status];
      expect(weekly).toEqual([200, 429]);
    } finally {
      await close(server);
    }
  });
});
