import { type Decision, Limit, MemoryStore, SluiceConfigError, type Store } from '@sluice/core';
import type { HttpVerdict } from '@sluice/core/http';
import { describeAdapter, EPOCH, expectNoSecret, secretCarriers } from '@sluice/test-kit';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { rateLimit, SkipThrottle, Throttle } from '../src/index.js';
import { bearerAuth, call, fastifyHarness } from './fastify-harness.js';

describeAdapter(fastifyHarness);

/** A fresh store and fake clock for one app. */
function fixture() {
  const time = { now: EPOCH };
  const store = new MemoryStore();
  return { time, store, base: { store, clock: () => time.now } };
}

/** An asynchronous store (like RedisStore) over a MemoryStore. */
function asyncStore(inner = new MemoryStore()): Store {
  return {
    consume: async (key, algorithm, cost, now) => inner.consume(key, algorithm, cost, now),
    reset: async (key) => inner.reset(key),
  };
}

const ok = async (request: FastifyRequest) => ({ ok: true, rateLimit: request.rateLimit });

async function statuses(
  app: ReturnType<typeof Fastify>,
  n: number,
  url: string,
  method: 'GET' | 'POST' = 'GET',
) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await app.inject({ method, url })).statusCode);
  return out;
}

describe('@sluice/fastify: global limit', () => {
  it('keys the global limit by `*`: one bucket per client across every route', async () => {
    const keys: string[] = [];
    const inner = new MemoryStore();
    const store: Store = {
      consume: (key, algorithm, cost, now) => {
        keys.push(key);
        return inner.consume(key, algorithm, cost, now);
      },
      reset: (key) => inner.reset(key),
    };
    const app = Fastify();
    await app.register(rateLimit, { store, limit: 'throttle:2,1' });
    app.get('/users/:id', ok);
    app.get('/other', ok);
    expect(await statuses(app, 3, '/users/1')).toEqual([200, 200, 429]);
    expect(await statuses(app, 1, '/users/2')).toEqual([429]);
    expect(await statuses(app, 2, '/other')).toEqual([429, 429]);
    expect(keys[0]).toBe('sl:2-per-60000ms:*:ip:127.0.0.1');
    await app.close();
  });

  it('global: false limits only routes that ask for it', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:1,1', global: false });
    app.get('/free', ok);
    app.get('/limited', { config: { rateLimit: 'throttle:1,1' } }, ok);
    expect(await statuses(app, 3, '/free')).toEqual([200, 200, 200]);
    expect(await statuses(app, 2, '/limited')).toEqual([200, 429]);
    await app.close();
  });

  it('@SkipThrottle() handlers are exempt from the global limit, not from their own config', async () => {
    const { base } = fixture();
    class Controller {
      @SkipThrottle()
      async health() {
        return 'up';
      }
      @SkipThrottle()
      async report() {
        return 'report';
      }
    }
    const c = new Controller();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:1,1' });
    app.get('/health', c.health);
    app.get('/report', { config: { rateLimit: 'throttle:2,1' } }, c.report);
    const health = await app.inject('/health');
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    expect(await statuses(app, 3, '/health')).toEqual([200, 200, 200]);
    expect(await statuses(app, 3, '/report')).toEqual([200, 200, 429]);
    await app.close();
  });

  it('a route config on a route with several methods keys each method apart', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, global: false });
    app.route({
      method: ['GET', 'POST'],
      url: '/m',
      config: { rateLimit: 'throttle:1,1' },
      handler: ok,
    });
    expect(await statuses(app, 2, '/m', 'GET')).toEqual([200, 429]);
    expect(await statuses(app, 2, '/m', 'POST')).toEqual([200, 429]);
    await app.close();
  });

  it('works with an asynchronous store (verdict as a promise)', async () => {
    const app = Fastify();
    await app.register(rateLimit, { store: asyncStore(), limit: 'throttle:2,1' });
    app.get('/a', { config: { rateLimit: 'throttle:5,1' } }, ok);
    const first = await call(app, 'GET', '/a');
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect((first.body as { rateLimit: Decision }).rateLimit.remaining).toBe(1);
    expect(await statuses(app, 2, '/a')).toEqual([200, 429]);
    const denied = await call(app, 'GET', '/a');
    expect(denied.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    await app.close();
  });

  it('charges a key the global limit and the route config share once', async () => {
    const { base } = fixture();
    const app = Fastify();
    // The `key` option replaces route and subject: the global and the route limits name one key.
    await app.register(rateLimit, { ...base, limit: 'throttle:3,1', key: (req) => req.ip });
    app.get('/a', { config: { rateLimit: 'throttle:3,1' } }, ok);
    app.get('/b', { config: { rateLimit: {} } }, ok); // options only: inherits limit and key
    expect(await statuses(app, 4, '/a')).toEqual([200, 200, 200, 429]);
    expect(await statuses(app, 1, '/b')).toEqual([429]);
    await app.close();
  });
});

describe('@sluice/fastify: config.rateLimit forms', () => {
  it('string, Limit, array, options object and false', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:100,1' });
    app.get('/string', { config: { rateLimit: 'throttle:1,1' } }, ok);
    app.get('/limit', { config: { rateLimit: Limit.perMinute(2) } }, ok);
    app.get('/array', { config: { rateLimit: ['throttle:3,1', Limit.perSecond(2)] } }, ok);
    app.get(
      '/options',
      { config: { rateLimit: { limit: '1/min', statusCode: 503, message: 'busy' } } },
      ok,
    );
    app.get('/off', { config: { rateLimit: false } }, ok);
    expect(await statuses(app, 2, '/string')).toEqual([200, 429]);
    expect(await statuses(app, 3, '/limit')).toEqual([200, 200, 429]);
    expect(await statuses(app, 3, '/array')).toEqual([200, 200, 429]);
    const options = await statuses(app, 2, '/options');
    expect(options).toEqual([200, 503]);
    expect((await call(app, 'GET', '/options')).body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'busy',
    });
    expect(await statuses(app, 5, '/off')).toEqual([200, 200, 200, 200, 200]);
    expect((await app.inject('/off')).headers['x-ratelimit-limit']).toBeUndefined();
    await app.close();
  });

  it('an options object inherits the registration options it leaves out (store, clock, headers)', async () => {
    const { base, time } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:100,1', headers: 'draft-7' });
    app.get('/a', { config: { rateLimit: { limit: 'throttle:1,1' } } }, ok);
    const first = await call(app, 'GET', '/a');
    expect(first.headers.ratelimit).toBe('limit=1, remaining=0, reset=60');
    expect((await call(app, 'GET', '/a')).status).toBe(429);
    time.now += 60_000; // the registration's clock
    expect((await call(app, 'GET', '/a')).status).toBe(200);
    await app.close();
  });

  it('an invalid config.rateLimit throws SluiceConfigError when the route is registered', async () => {
    const app = Fastify();
    await app.register(rateLimit);
    expect(() =>
      // @ts-expect-error 42 is not a RouteRateLimit
      app.get('/bad', { config: { rateLimit: 42 } }, ok),
    ).toThrow(SluiceConfigError);
    expect(() => app.get('/bad2', { config: { rateLimit: 'throttle:0,1' } }, ok)).toThrow(
      /"maxAttempts"|throttle:0,1/,
    );
    await app.close();
  });

  it('an invalid plugin option rejects register with SluiceConfigError', async () => {
    const app = Fastify();
    await expect(app.register(rateLimit, { limit: 'throttle:nope' })).rejects.toThrow(
      SluiceConfigError,
    );
    const other = Fastify();
    // @ts-expect-error not a boolean
    await expect(other.register(rateLimit, { global: 'yes' })).rejects.toThrow(/"global"/);
    const third = Fastify();
    await expect(
      // @ts-expect-error not a function
      third.register(rateLimit, { errorResponseBuilder: 'x' }),
    ).rejects.toThrow(/"errorResponseBuilder"/);
  });

  it('no error text contains a secret from the value it rejects', async () => {
    const valid = {
      limit: '1/s',
      hook: 'onRequest',
      errorResponseBuilder: () => ({}),
      global: true,
    };
    for (const option of Object.keys(valid)) {
      let thrown = 0;
      for (const [, value] of secretCarriers()) {
        const app = Fastify();
        const error = await app.register(rateLimit, { ...valid, [option]: value } as never).then(
          () => undefined,
          (e: Error) => e,
        );
        if (error !== undefined) thrown++;
        expectNoSecret(error);
        const routes = Fastify();
        await routes.register(rateLimit);
        try {
          routes.get('/x', { config: { rateLimit: value as never } }, ok);
        } catch (e) {
          expectNoSecret(e as Error);
        }
      }
      expect([option, thrown > 0]).toEqual([option, true]);
    }
  });

  it('used as a hook instead of registered, it answers 500 saying to register it', async () => {
    const app = Fastify();
    app.addHook('onRequest', rateLimit as never);
    app.get('/a', ok);
    const answer = await app.inject({ method: 'GET', url: '/a' });
    expect(answer.statusCode).toBe(500);
    expect(answer.json().message).toContain('await app.register(rateLimit, options)');
    expect(() => (rateLimit as () => void)()).toThrow(SluiceConfigError);
    await app.close();
  });

  it('an unknown option name is a SluiceConfigError saying what to write instead', async () => {
    await expect(
      Fastify().register(rateLimit, { max: 5, timeWindow: '1 minute' } as never),
    ).rejects.toThrow(
      /unknown options in the @sluice\/fastify plugin options: "max" \(sluice has no "max".*\); "timeWindow" \(/,
    );
    await expect(
      Fastify().register(rateLimit, { errorResponseBuilderr: () => ({}) } as never),
    ).rejects.toThrow(/did you mean "errorResponseBuilder"\?/);
    const app = Fastify();
    await app.register(rateLimit, { global: false, hook: 'onRequest' });
    expect(() => app.get('/typo', { config: { rateLimit: { limti: 1 } as never } }, ok)).toThrow(
      'sluice: unknown option "limti" in config.rateLimit of GET /typo: did you mean "limit"?',
    );
    // `global` is the plugin's option, not a route's.
    expect(() => app.get('/g', { config: { rateLimit: { global: true } as never } }, ok)).toThrow(
      /unknown option "global" in config.rateLimit of GET \/g/,
    );
    expect(() => app.rateLimit({ timeWindow: 1000 } as never)).toThrow(
      /unknown option "timeWindow" in app.rateLimit\(\)/,
    );
    expect(() => Throttle('5/s', { keyGenerator: () => 'k' } as never)).toThrow(
      /unknown option "keyGenerator" in @Throttle\(\)/,
    );
    app.get('/fine', { config: { rateLimit: { limit: '5/s', hook: 'preHandler' } } }, ok);
    await app.close();
  });
});

describe('@sluice/fastify: app.rateLimit() hook', () => {
  it('limits the route it is attached to (onRequest or preHandler), inheriting the registration', async () => {
    const { base } = fixture();
    const app = Fastify();
    bearerAuth(app);
    await app.register(rateLimit, { ...base, global: false });
    app.get('/c', { onRequest: app.rateLimit('throttle:2,1') }, ok);
    app.get('/d', { preHandler: [app.rateLimit({ limit: Limit.perMinute(1) })] }, ok);
    app.get('/e', { onRequest: app.rateLimit() }, ok); // the registration's limit: 60/min
    expect(await statuses(app, 3, '/c')).toEqual([200, 200, 429]);
    expect(await statuses(app, 2, '/d')).toEqual([200, 429]);
    expect((await call(app, 'GET', '/e')).headers['x-ratelimit-limit']).toBe('60');
    await app.close();
  });

  it('a shared hook keys each route apart; on the not-found handler the route is *', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, global: false });
    const limited = app.rateLimit('throttle:1,1');
    app.get('/x', { onRequest: limited }, ok);
    app.get('/y', { onRequest: [limited] }, ok);
    app.setNotFoundHandler({ preHandler: limited }, async (_req, reply) =>
      reply.code(404).send('none'),
    );
    expect(await statuses(app, 2, '/x')).toEqual([200, 429]);
    expect(await statuses(app, 2, '/y')).toEqual([200, 429]);
    expect(await statuses(app, 1, '/nope')).toEqual([404]);
    expect(await statuses(app, 1, '/other')).toEqual([429]);
    await app.close();
  });

  it('throws SluiceConfigError for an invalid limit when called', async () => {
    const app = Fastify();
    await app.register(rateLimit);
    expect(() => app.rateLimit('60/fortnight')).toThrow(SluiceConfigError);
    await app.close();
  });
});

describe('@sluice/fastify: @Throttle()', () => {
  it('wraps a handler method with its own limit (TC39 decorator)', async () => {
    const { base } = fixture();
    class Users {
      runs = 0;
      @Throttle('throttle:2,1', base)
      async show(request: FastifyRequest<{ Params: { id: string } }>) {
        return { id: request.params.id, rateLimit: request.rateLimit };
      }
      @Throttle(Limit.perMinute(1), base)
      send(_request: FastifyRequest, reply: FastifyReply) {
        reply.send('sent');
      }
    }
    const users = new Users();
    const app = Fastify();
    app.get('/users/:id', users.show);
    app.get('/send', users.send);
    const first = await call(app, 'GET', '/users/7');
    expect(first.body).toMatchObject({ id: '7', rateLimit: { limit: 2, remaining: 1 } });
    expect(await statuses(app, 2, '/users/8')).toEqual([200, 429]); // one key per route pattern
    expect((await call(app, 'GET', '/send')).body).toBe('sent');
    const denied = await call(app, 'GET', '/send');
    expect(denied.status).toBe(429);
    expect(denied.headers['retry-after']).toBe('60');
    await app.close();
  });

  it('works with an asynchronous store and keeps @SkipThrottle', async () => {
    class C {
      @Throttle('throttle:2,1', { store: asyncStore() })
      @SkipThrottle()
      send(_request: FastifyRequest, reply: FastifyReply) {
        reply.send('sent');
      }
      @Throttle('throttle:1,1', { store: asyncStore() })
      async value() {
        return 'value';
      }
    }
    const c = new C();
    const app = Fastify();
    await app.register(rateLimit, { limit: 'throttle:1,1', store: new MemoryStore() });
    app.get('/send', c.send);
    app.get('/value', c.value);
    const first = await call(app, 'GET', '/send');
    expect([first.status, first.body]).toEqual([200, 'sent']);
    // Only @Throttle's 2/min limits /send: were the @SkipThrottle mark lost under the
    // @Throttle wrapper, the global 1/min would deny the second request.
    expect(await statuses(app, 2, '/send')).toEqual([200, 429]);
    expect((await call(app, 'GET', '/value')).body).toBe('value');
    expect((await call(app, 'GET', '/value')).status).toBe(429);
    await app.close();
  });
});

describe('@sluice/fastify: errorResponseBuilder and errors', () => {
  it('errorResponseBuilder replaces the 429 body; headers and status stay', async () => {
    const { base } = fixture();
    const seen: HttpVerdict[] = [];
    const app = Fastify();
    await app.register(rateLimit, {
      ...base,
      limit: 'throttle:1,1',
      errorResponseBuilder: (request, verdict) => {
        seen.push(verdict);
        return { code: 'SLOW_DOWN', url: request.url, waitMs: verdict.decision.retryAfterMs };
      },
    });
    app.get('/a', ok);
    await app.inject('/a');
    const denied = await call(app, 'GET', '/a');
    expect(denied.status).toBe(429);
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    expect(denied.headers['retry-after']).toBe('60');
    expect(denied.headers['x-ratelimit-remaining']).toBe('0');
    expect(denied.body).toEqual({ code: 'SLOW_DOWN', url: '/a', waitMs: 60_000 });
    expect(seen[0]?.statusCode).toBe(429);
    await app.close();
  });

  it('errorResponseBuilder returning an Error goes to the error handler', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, {
      ...base,
      limit: 'throttle:1,1',
      errorResponseBuilder: () => Object.assign(new Error('too fast'), { statusCode: 429 }),
    });
    app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      reply.code(error.statusCode ?? 500).send({ handled: error.message });
    });
    app.get('/a', { config: { rateLimit: { limit: 'throttle:1,1' } } }, ok);
    await app.inject('/a');
    const denied = await call(app, 'GET', '/a');
    expect([denied.status, denied.body]).toEqual([429, { handled: 'too fast' }]);
    expect(denied.headers['retry-after']).toBe('60');
    await app.close();
  });

  it('a message function returning a string is sent as text', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:1,1', message: () => 'slow down' });
    app.get('/a', ok);
    await app.inject('/a');
    const denied = await call(app, 'GET', '/a');
    expect([denied.status, denied.body]).toEqual([429, 'slow down']);
    expect(denied.headers['content-type']).toMatch(/^text\/plain/);
    await app.close();
  });

  it('a throwing callback (sync or async store) reaches the error handler, never crashes', async () => {
    for (const store of [new MemoryStore(), asyncStore()]) {
      const app = Fastify();
      await app.register(rateLimit, {
        store,
        key: (req) => {
          if (req.headers['x-boom']) throw new Error('boom');
          return 'k';
        },
        onLimited: () => {
          throw new Error('limited boom');
        },
        limit: 'throttle:1,1',
      });
      app.setErrorHandler((error: Error, _request, reply) => {
        reply.code(500).send({ caught: error.message });
      });
      app.get('/a', ok);
      const boom = await call(app, 'GET', '/a', { 'x-boom': '1' });
      expect([boom.status, boom.body]).toEqual([500, { caught: 'boom' }]);
      expect((await call(app, 'GET', '/a')).status).toBe(200);
      const limited = await call(app, 'GET', '/a');
      expect([limited.status, limited.body]).toEqual([500, { caught: 'limited boom' }]);
      await app.close();
    }
  });
});

describe('@sluice/fastify: registration and encapsulation', () => {
  it('registering twice in one context: both global limits apply; app.rateLimit inherits the last', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: Limit.perMinute(3).named('wide') });
    await app.register(rateLimit, { ...base, limit: Limit.perMinute(2).named('narrow') });
    app.get('/a', ok);
    app.get('/b', { config: { rateLimit: false } }, ok);
    const first = await call(app, 'GET', '/a');
    expect(first.headers['x-ratelimit-limit']).toBe('2'); // the most restrictive is reported
    expect(await statuses(app, 2, '/a')).toEqual([200, 429]);
    expect(await statuses(app, 3, '/b')).toEqual([200, 200, 200]);
    await app.close();
  });

  it('registered without await: a route declared before it that asks for a limit is refused (500), never unlimited', async () => {
    const { base } = fixture();
    const app = Fastify();
    void app.register(rateLimit, { ...base, global: false });
    app.get('/a', { config: { rateLimit: '1/min' } }, ok);
    app.get('/free', ok);
    const a = await app.inject({ method: 'GET', url: '/a' });
    expect(a.statusCode).toBe(500);
    expect(a.json().message).toContain('the route GET /a asks for a rate limit (config.rateLimit)');
    expect(a.json().message).toContain('await app.register(rateLimit, options)');
    // A route that asks for nothing (global: false) is served.
    expect(await statuses(app, 2, '/free')).toEqual([200, 200]);
    await app.close();
  });

  it('registered after the routes: the global limit is refused on them (500), an opt-out passes', async () => {
    const { base } = fixture();
    const app = Fastify();
    app.get('/a', ok);
    app.get('/out', { config: { rateLimit: false } }, ok);
    await app.register(rateLimit, { ...base, limit: '5/min' });
    app.get('/after', ok);
    const a = await app.inject({ method: 'GET', url: '/a' });
    expect(a.statusCode).toBe(500);
    expect(a.json().message).toContain('the route GET /a asks for a rate limit (the global limit)');
    expect(await statuses(app, 2, '/out')).toEqual([200, 200]);
    // Routes declared after it are limited as usual.
    const after = await app.inject({ method: 'GET', url: '/after' });
    expect([after.statusCode, after.headers['x-ratelimit-limit']]).toEqual([200, '5']);
    await app.close();
  });

  it('in a child context too: a route declared before the registration there is refused', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(async (child) => {
      child.get('/x', { config: { rateLimit: '1/min' } }, ok);
      await child.register(rateLimit, { ...base, global: false });
    });
    expect((await app.inject({ method: 'GET', url: '/x' })).statusCode).toBe(500);
    await app.close();
  });

  it('a registration in a child context limits that context only, on top of the parent one', async () => {
    const { base } = fixture();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: Limit.perMinute(5).named('root') });
    app.get('/root', ok);
    await app.register(async (child) => {
      await child.register(rateLimit, { ...base, limit: Limit.perMinute(1).named('child') });
      child.get('/child', ok);
    });
    await app.register(async (child) => {
      await child.register(rateLimit, {
        ...base,
        global: false,
        limit: '1/min',
        headers: 'draft-7',
      });
      child.get('/child-config', { config: { rateLimit: {} } }, ok);
    });
    await app.register(async (sibling) => {
      sibling.get('/sibling', ok);
    });
    // Route config inherits the nearest registration (1/min, draft-7), the root limit applies
    // too; the root's global bucket (`*`) is shared by every context's routes.
    const cfg = await call(app, 'GET', '/child-config'); // root 1 of 5
    expect(cfg.headers.ratelimit).toBe('limit=1, remaining=0, reset=60');
    expect(await statuses(app, 1, '/child-config')).toEqual([429]); // root 2
    expect(await statuses(app, 2, '/child')).toEqual([200, 429]); // root 3, 4
    expect(await statuses(app, 2, '/root')).toEqual([200, 429]); // root 5
    expect(await statuses(app, 1, '/sibling')).toEqual([429]);
    await app.close();
  });

  it('prefixed routes use the full pattern; trustProxy decides the client IP', async () => {
    const { base } = fixture();
    const app = Fastify({ trustProxy: true });
    await app.register(rateLimit, { ...base, limit: 'throttle:1,1' });
    await app.register(
      async (api) => {
        api.get('/items/:id', ok);
      },
      { prefix: '/v1' },
    );
    const xff = (ip: string) => ({ 'x-forwarded-for': ip });
    expect((await call(app, 'GET', '/v1/items/1', xff('1.1.1.1'))).status).toBe(200);
    expect((await call(app, 'GET', '/v1/items/2', xff('1.1.1.1'))).status).toBe(429);
    expect((await call(app, 'GET', '/v1/items/2', xff('2.2.2.2'))).status).toBe(200);
    await app.close();
  });
});

describe('@sluice/fastify: decorators on classes', () => {
  type Legacy = (target: abstract new () => unknown) => void;

  it('@SkipThrottle() and @Throttle() on a class apply to every method, in the TC39 and legacy forms', async () => {
    const { base } = fixture();
    @SkipThrottle()
    class Probes {
      async live() {
        return 'live';
      }
      async ready() {
        return 'ready';
      }
    }
    class LegacyProbes {
      async up() {
        return 'up';
      }
    }
    (SkipThrottle() as unknown as Legacy)(LegacyProbes);
    @Throttle('throttle:2,1', base)
    class Reports {
      async daily() {
        return 'daily';
      }
    }
    class LegacyReports {
      async weekly() {
        return 'weekly';
      }
    }
    (Throttle('throttle:1,1', base) as unknown as Legacy)(LegacyReports);
    const probes = new Probes();
    const legacy = new LegacyProbes();
    const reports = new Reports();
    const legacyReports = new LegacyReports();
    const app = Fastify();
    await app.register(rateLimit, { ...base, limit: 'throttle:100,1' });
    app.get('/live', probes.live.bind(probes));
    app.get('/ready', probes.ready);
    app.get('/up', legacy.up.bind(legacy));
    app.get('/daily', reports.daily.bind(reports));
    app.get('/weekly', legacyReports.weekly.bind(legacyReports));
    for (const path of ['/live', '/ready', '/up']) {
      const res = await app.inject(path);
      expect([res.statusCode, res.headers['x-ratelimit-limit']]).toEqual([200, undefined]);
    }
    expect(await statuses(app, 3, '/daily')).toEqual([200, 200, 429]);
    expect(await statuses(app, 2, '/weekly')).toEqual([200, 429]);
    await app.close();
  });
});
