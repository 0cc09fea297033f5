import 'reflect-metadata';
import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  type INestApplication,
  Injectable,
  Module,
  Param,
  Req,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { Limit, MemoryStore, SluiceConfigError } from '@sluice/core';
import { EPOCH, type TestResponse } from '@sluice/test-kit';
import { defaultRequestResponse } from '../src/config.js';
import {
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  type SluiceModuleOptions,
  Throttle,
  ThrottleException,
} from '../src/index.js';
import type { NestRequest } from '../src/types.js';
import { type Platform, reply, send, startNest, urlOf } from './harness.js';

const clock = () => EPOCH;

/** Starts `controllers` under `SluiceModule.forRoot(options)` on `platform`. */
async function start(
  platform: Platform,
  options: SluiceModuleOptions,
  controllers: Function[],
  extra: { providers?: unknown[]; imports?: unknown[] } = {},
): Promise<{
  app: INestApplication;
  get: (path: string, h?: Record<string, string>) => Promise<TestResponse>;
}> {
  @Module({
    imports: [SluiceModule.forRoot(options), ...((extra.imports ?? []) as [])],
    controllers: controllers as never[],
    providers: (extra.providers ?? []) as never[],
  })
  class AppModule {}
  const app = await startNest(platform, AppModule);
  const url = await urlOf(app);
  return { app, get: (path, h) => send(url, 'GET', path, h) };
}

const statuses = async (get: (p: string) => Promise<TestResponse>, n: number, path: string) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await get(path)).status);
  return out;
};

for (const platform of ['express', 'fastify'] as const) {
  describe(`@sluice/nestjs on ${platform}`, () => {
    let app: INestApplication | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('a class @Throttle limits every handler of the controller, each route in its own bucket; a handler @Throttle adds to it', async () => {
      @Throttle('throttle:3,1')
      @Controller('items')
      class Items {
        @Get('a') a() {
          return 'a';
        }
        @Throttle('throttle:1,1')
        @Get('b')
        b() {
          return 'b';
        }
      }
      const started = await start(platform, { limit: false, store: new MemoryStore(), clock }, [
        Items,
      ]);
      app = started.app;
      // /items/a: the class limit only (3); /items/b: the class limit and its own (1).
      expect(await statuses(started.get, 4, '/items/a')).toEqual([200, 200, 200, 429]);
      const b = await started.get('/items/b');
      expect([b.status, b.headers['x-ratelimit-limit']]).toEqual([200, '1']);
      expect(await statuses(started.get, 1, '/items/b')).toEqual([429]);
    });

    it('a class @SkipThrottle exempts every handler from the global limit; a @Throttle on one still applies', async () => {
      @SkipThrottle()
      @Controller('ops')
      class Ops {
        @Get('health') health() {
          return 'ok';
        }
        @Throttle('throttle:2,1')
        @Get('report')
        report() {
          return 'r';
        }
      }
      @Controller('api')
      class Api {
        @Get() list() {
          return [];
        }
      }
      const started = await start(
        platform,
        { limit: 'throttle:1,1', store: new MemoryStore(), clock },
        [Ops, Api],
      );
      app = started.app;
      expect(await statuses(started.get, 3, '/ops/health')).toEqual([200, 200, 200]);
      expect(await statuses(started.get, 3, '/ops/report')).toEqual([200, 200, 429]);
      expect(await statuses(started.get, 2, '/api')).toEqual([200, 429]);
    });

    it("the route in the key is the handler's pattern (controller path + method path), never the URL", async () => {
      const routes: string[] = [];
      @Controller('users')
      class Users {
        @Throttle('throttle:2,1', {
          skip: (view) => {
            routes.push(view.route);
            return false;
          },
        })
        @Get(':id')
        show(@Param('id') id: string) {
          return id;
        }
      }
      const started = await start(platform, { limit: false, store: new MemoryStore(), clock }, [
        Users,
      ]);
      app = started.app;
      expect((await started.get('/users/1')).status).toBe(200);
      expect((await started.get('/users/2?x=1')).status).toBe(200);
      expect((await started.get('/users/3')).status).toBe(429);
      expect(new Set(routes)).toEqual(new Set(['GET /users/:id']));
    });

    it('forRootAsync: the options come from an injected provider', async () => {
      const LIMIT = Symbol('limit');
      @Module({ providers: [{ provide: LIMIT, useValue: 'throttle:2,1' }], exports: [LIMIT] })
      class ConfigModule {}
      @Controller()
      class Root {
        @Get() index(@Req() req: NestRequest) {
          return { remaining: req.rateLimit.remaining };
        }
      }
      @Module({
        imports: [
          SluiceModule.forRootAsync({
            imports: [ConfigModule],
            inject: [LIMIT],
            useFactory: async (limit: string) => ({ limit, store: new MemoryStore(), clock }),
          }),
        ],
        controllers: [Root],
      })
      class AppModule {}
      app = await startNest(platform, AppModule);
      const url = await urlOf(app);
      const first = await send(url, 'GET', '/');
      expect(first.body).toEqual({ remaining: 1 });
      expect((await send(url, 'GET', '/')).status).toBe(200);
      expect((await send(url, 'GET', '/')).status).toBe(429);
    });

    it('forRootAsync: a bad option from the factory fails when the application starts', async () => {
      @Module({
        imports: [SluiceModule.forRootAsync({ useFactory: () => ({ windowMs: 1000 }) as never })],
      })
      class AppModule {}
      await expect(startNest(platform, AppModule)).rejects.toThrow(/unknown option "windowMs"/);
    });

    it('global: false and @UseGuards(AuthGuard, SluiceGuard): the limit runs after authentication and keys by req.user', async () => {
      @Injectable()
      class AuthGuard implements CanActivate {
        canActivate(context: ExecutionContext): boolean {
          const req = context.switchToHttp().getRequest();
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          if (token !== undefined) req.user = { id: token };
          return true;
        }
      }
      @UseGuards(AuthGuard, SluiceGuard)
      @Controller('me')
      class Me {
        @Get() me() {
          return 'me';
        }
      }
      @Controller('open')
      class Open {
        @Get() open() {
          return 'open';
        }
      }
      const started = await start(
        platform,
        { limit: 'throttle:1,1', global: false, store: new MemoryStore(), clock },
        [Me, Open],
      );
      app = started.app;
      const alice = { authorization: 'Bearer alice' };
      expect((await started.get('/me', alice)).status).toBe(200);
      expect((await started.get('/me', alice)).status).toBe(429);
      expect((await started.get('/me', { authorization: 'Bearer bob' })).status).toBe(200);
      // Not guarded: global: false registers no global guard.
      expect(await statuses(started.get, 3, '/open')).toEqual([200, 200, 200]);
    });

    it('a malformed @Throttle fails when the application starts, naming the controller and handler', async () => {
      @Controller('x')
      class Broken {
        @Throttle('throttle:0,1') @Get() show() {
          return 'x';
        }
      }
      const error = await start(platform, { limit: false }, [Broken]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SluiceConfigError);
      expect((error as Error).message).toMatch(/Broken\.show/);
      expect((error as Error).message).toMatch(/GET \/x/);
    });

    it('a @Throttle naming a limiter nobody defined fails at start; Limit objects are accepted', async () => {
      @Controller()
      class Named {
        @Throttle('throttle:no-such-limiter') @Get('a') a() {
          return 'a';
        }
        @Throttle(Limit.perMinute(5)) @Get('b') b() {
          return 'b';
        }
      }
      await expect(start(platform, { limit: false }, [Named])).rejects.toThrow(/Named\.a/);
    });

    it("a filter of the app's own for ThrottleException replaces the 429 answer; the headers are already set", async () => {
      @Catch(ThrottleException)
      class Teapot implements ExceptionFilter {
        catch(e: ThrottleException, host: ArgumentsHost) {
          reply(host.switchToHttp().getResponse(), 418, {
            waitMs: e.verdict.decision.retryAfterMs,
          });
        }
      }
      @UseFilters(Teapot)
      @Controller()
      class Root {
        @Get() index() {
          return 'ok';
        }
      }
      const started = await start(
        platform,
        { limit: 'throttle:1,1', store: new MemoryStore(), clock },
        [Root],
      );
      app = started.app;
      await started.get('/');
      const denied = await started.get('/');
      expect(denied.status).toBe(418);
      expect(denied.body).toEqual({ waitMs: 60_000 });
      expect(denied.headers['retry-after']).toBe('60');
    });

    it('getRequestResponse: the option decides which request a context limits', async () => {
      const types: string[] = [];
      @Controller()
      class Root {
        @Get() index() {
          return 'ok';
        }
      }
      const started = await start(
        platform,
        {
          limit: 'throttle:1,1',
          store: new MemoryStore(),
          clock,
          getRequestResponse: (context) => {
            types.push(context.getType());
            const http = context.switchToHttp();
            return { req: http.getRequest(), res: http.getResponse() };
          },
        },
        [Root],
      );
      app = started.app;
      expect(await statuses(started.get, 2, '/')).toEqual([200, 429]);
      expect(types).toEqual(['http', 'http']);
    });
  });
}

describe('SluiceModule.forRoot options', () => {
  it('rejects unknown option names, and says what to write for @nestjs/throttler names', () => {
    expect(() => SluiceModule.forRoot({ windowMs: 1 } as never)).toThrow(
      /unknown option "windowMs"/,
    );
    expect(() => SluiceModule.forRoot({ ttl: 60_000 } as never)).toThrow(
      /unknown option "ttl".*limit: '10\/min'/,
    );
    expect(() => SluiceModule.forRoot({ throttlers: [] } as never)).toThrow(SluiceConfigError);
    expect(() => SluiceModule.forRoot({ global: 'yes' } as never)).toThrow(/"global"/);
    expect(() => SluiceModule.forRoot({ getRequestResponse: 1 } as never)).toThrow(
      /"getRequestResponse"/,
    );
  });

  it('an invalid value fails when the application starts', async () => {
    @Module({ imports: [SluiceModule.forRoot({ limit: 'throttle:0,1' })] })
    class AppModule {}
    await expect(startNest('express', AppModule)).rejects.toThrow(SluiceConfigError);
  });
});

describe('never silently unlimited, never silently ignored', () => {
  it("@nestjs/throttler's array form of forRoot is a SluiceConfigError that says what to write", () => {
    let error: unknown;
    try {
      SluiceModule.forRoot([
        { name: 'short', ttl: 1000, limit: 3 },
        { ttl: 60_000, limit: 100 },
      ] as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('a name of 1 characters');
    expect(message).toContain("@nestjs/throttler's array of throttlers");
    expect(message).toContain(
      "SluiceModule.forRoot({ limit: [Limit.per(3, 1000).named('short'), Limit.per(100, 60000)] })",
    );
    // What it says to write is taken.
    expect(() =>
      SluiceModule.forRoot({ limit: [Limit.per(3, 1000).named('short'), Limit.per(100, 60000)] }),
    ).not.toThrow();
  });

  it('forRootAsync whose factory returns the array fails at start-up with the same hint', async () => {
    @Module({
      imports: [
        SluiceModule.forRootAsync({ useFactory: () => [{ ttl: 60_000, limit: 10 }] as never }),
      ],
    })
    class AppModule {}
    await expect(startNest('express', AppModule)).rejects.toThrow(
      /useFactory: \(\) => \(\{ limit: Limit\.per\(10, 60000\) \}\)/,
    );
  });

  it.each(['express', 'fastify'] as const)(
    '%s: a @Throttle in an application without SluiceModule fails at start-up, naming the class',
    async (platform) => {
      @Controller('bare')
      class Bare {
        @Throttle('throttle:1,1')
        @Get()
        get() {
          return 'ok';
        }
      }
      @Module({ controllers: [Bare] })
      class AppModule {}
      const error = await startNest(platform, AppModule).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SluiceConfigError);
      expect((error as Error).message).toContain(
        'Bare has a @Throttle but no SluiceModule is imported',
      );
      // With the module, the same controller starts and is limited; its own hook still runs.
      let hooked = 0;
      @Throttle('throttle:1,1')
      @Controller('hooked')
      class Hooked {
        onApplicationBootstrap() {
          hooked++;
        }
        @Get() get() {
          return 'ok';
        }
      }
      const started = await start(platform, { limit: false, store: new MemoryStore(), clock }, [
        Hooked,
      ]);
      try {
        expect(hooked).toBe(1);
        expect(await statuses(started.get, 2, '/hooked')).toEqual([200, 429]);
      } finally {
        await started.app.close();
      }
    },
  );

  it('a second forRoot in a feature module fails at start-up, naming forRoot and the modules', async () => {
    @Module({ imports: [SluiceModule.forRoot({ limit: 'throttle:100,1' })] })
    class FeatureModule {}
    @Module({ imports: [SluiceModule.forRoot({ limit: 'throttle:5,1' }), FeatureModule] })
    class AppModule {}
    const error = await startNest('express', AppModule).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe('forRoot');
    expect((error as Error).message).toContain('imported 2 times');
    expect((error as Error).message).toContain('FeatureModule');
    expect((error as Error).message).toContain('AppModule');
  });
});

describe('the request behind a context (defaultRequestResponse)', () => {
  const context = (type: string, args: unknown[]) =>
    ({
      getType: () => type,
      getArgByIndex: (i: number) => args[i],
      switchToHttp: () => ({ getRequest: () => args[0], getResponse: () => args[1] }),
    }) as unknown as ExecutionContext;

  it('HTTP: the platform request and response', () => {
    const req = {};
    const res = {};
    expect(defaultRequestResponse(context('http', [req, res]))).toEqual({ req, res });
  });

  it("GraphQL: the context's req and res (Apollo on Express) or request and reply (Mercurius)", () => {
    const req = { id: 1 };
    const res = { id: 2 };
    expect(defaultRequestResponse(context('graphql', [{}, {}, { req, res }, {}]))).toEqual({
      req,
      res,
    });
    const request = { id: 3 };
    const reply = { id: 4 };
    expect(defaultRequestResponse(context('graphql', [{}, {}, { request, reply }]))).toEqual({
      req: request,
      res: reply,
    });
    expect(() => defaultRequestResponse(context('graphql', [{}, {}, {}]))).toThrow(
      /getRequestResponse/,
    );
  });

  it('WebSocket and microservice contexts are not HTTP requests: none (not limited)', () => {
    expect(defaultRequestResponse(context('ws', [{}, {}]))).toBeUndefined();
    expect(defaultRequestResponse(context('rpc', [{}, {}]))).toBeUndefined();
  });
});
