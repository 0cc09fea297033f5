import 'reflect-metadata';
import {
  type CanActivate,
  Controller,
  type DynamicModule,
  type ExecutionContext,
  Get,
  type INestApplication,
  Injectable,
  Module,
  Post,
  Req,
  Res,
  type Type,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type {
  AdapterHarness,
  AppSpec,
  RouteSpec,
  TestClient,
  TestResponse,
} from '@sluice/test-kit';
import { routeId, userIdFor } from '@sluice/test-kit';
import {
  SkipThrottle,
  SluiceGuard,
  SluiceModule,
  type SluiceModuleOptions,
  Throttle,
} from '../src/index.js';
import type { NestRequest, NestResponse } from '../src/types.js';

export type Platform = 'express' | 'fastify';

/** Sends `body` as JSON with `status`, on an Express response or a Fastify reply. */
export function reply(res: NestResponse, status: number, body: unknown): void {
  if (typeof res.code === 'function') res.code(status).send(body);
  else res.status(status).json(body);
}

/** Applies legacy decorators to a method of `cls`, as `@A() @B() method()` would (B first). */
export function decorate(cls: Function, method: string, ...decorators: MethodDecorator[]): void {
  const proto = cls.prototype as object;
  for (const d of decorators.reverse()) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, method)!;
    const out = d(proto, method, descriptor);
    if (out) Object.defineProperty(proto, method, out);
  }
}

/** A controller serving one harness route; counts its runs, answers `{ ok, rateLimit }`. */
function controllerFor(route: RouteSpec, runs: Map<string, number>, guards: Function[]): Type {
  const id = routeId(route);
  const gate = route.gate;
  class RouteController {
    async handle(req: NestRequest, res: NestResponse): Promise<void> {
      runs.set(id, (runs.get(id) ?? 0) + 1);
      if (gate !== undefined) await gate.wait();
      const status = req.headers['x-status'];
      reply(res, typeof status === 'string' ? Number(status) : 200, {
        ok: true,
        rateLimit: req.rateLimit,
      });
    }
  }
  Req()(RouteController.prototype, 'handle', 0);
  Res()(RouteController.prototype, 'handle', 1);
  const decorators: MethodDecorator[] = [
    route.method === 'GET' ? Get(route.path) : Post(route.path),
  ];
  if (route.limit === false || route.skipThrottle) decorators.push(SkipThrottle());
  if (route.limit !== undefined && route.limit !== false) {
    decorators.push(Throttle(route.limit, route.options));
  }
  decorate(RouteController, 'handle', ...decorators);
  if (guards.length > 0) UseGuards(...guards)(RouteController);
  Controller(route.mount ?? '')(RouteController);
  return RouteController;
}

/** Sets `req.user = { id }` from `Authorization: Bearer <token>` (Passport's place). */
function authenticate(req: NestRequest, spec: AppSpec): void {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (m) req.user = { id: userIdFor(spec, m[1]!) };
}

/** An authentication guard (as Passport's `AuthGuard`), for `lateAuth`. */
function authGuardFor(spec: AppSpec): Function {
  @Injectable()
  class AuthGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      authenticate(context.switchToHttp().getRequest(), spec);
      return true;
    }
  }
  return AuthGuard;
}

/** Starts a Nest application with `module` on `platform`, listening on a free port. */
export async function startNest(
  platform: Platform,
  module: Type | DynamicModule,
  setup: { trustProxy?: boolean | 'all'; authenticate?: (req: NestRequest) => void } = {},
): Promise<INestApplication> {
  // As the other harnesses: `true` trusts the test client (loopback), `'all'` every hop.
  const trust = setup.trustProxy === 'all' ? true : setup.trustProxy ? 'loopback' : false;
  const adapter =
    platform === 'express'
      ? new ExpressAdapter()
      : new FastifyAdapter(trust === false ? {} : { trustProxy: trust });
  const app = await NestFactory.create(module, adapter, { logger: false, abortOnError: false });
  if (platform === 'express' && trust !== false) {
    (app.getHttpAdapter().getInstance() as { set(k: string, v: unknown): void }).set(
      'trust proxy',
      trust,
    );
  }
  const auth = setup.authenticate;
  if (auth !== undefined) {
    const instance = app.getHttpAdapter().getInstance();
    if (platform === 'fastify') {
      instance.addHook('onRequest', async (request: NestRequest) => auth(request));
    } else {
      app.use((req: NestRequest, _res: unknown, next: () => void) => {
        auth(req);
        next();
      });
    }
  }
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** A request to a listening app, answered as the shared table reads it. */
export async function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const res = await fetch(url + path, { method, headers });
  const text = await res.text();
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    out[name] = value;
  });
  const body = /json/.test(out['content-type'] ?? '') && text !== '' ? JSON.parse(text) : text;
  return { status: res.status, headers: out, body };
}

export async function urlOf(app: INestApplication): Promise<string> {
  return (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
}

async function clientOf(app: INestApplication, runs: Map<string, number>): Promise<TestClient> {
  const url = await urlOf(app);
  return {
    url,
    request: (method, path, headers) => send(url, method, path, headers),
    handlerRuns: (method, path) => runs.get(`${method} ${path}`) ?? 0,
    close: () => app.close(),
  };
}

function appModule(options: SluiceModuleOptions, controllers: Type[]): Type {
  class AppModule {}
  Module({ imports: [SluiceModule.forRoot(options)], controllers })(AppModule);
  return AppModule;
}

/**
 * The harness of the shared behaviour table through Nest: one controller per route
 * (`mount` is the controller's path), `@Throttle(limit, options)` for a per-route limit,
 * `@SkipThrottle()` for `skipThrottle` and for `limit: false` (Nest's opt-out), the global
 * limit `SluiceModule.forRoot(global)` (`limit: false` when there is none). `lateAuth`:
 * `global: false` and `@UseGuards(AuthGuard, SluiceGuard)` on every controller.
 */
export function nestHarness(platform: Platform): AdapterHarness {
  return {
    name: platform === 'express' ? 'nestjs on express' : 'nestjs on fastify',
    async start(spec) {
      const runs = new Map<string, number>();
      const late = spec.bearerUser === true && spec.lateAuth === true;
      const guards = late ? [authGuardFor(spec), SluiceGuard] : [];
      const controllers = spec.routes.map((r) => controllerFor(r, runs, guards));
      const options: SluiceModuleOptions = { ...(spec.global ?? { limit: false }) };
      if (late) options.global = false;
      const app = await startNest(platform, appModule(options, controllers), {
        trustProxy: spec.trustProxy,
        ...(spec.bearerUser && !late ? { authenticate: (req) => authenticate(req, spec) } : {}),
      });
      return clientOf(app, runs);
    },
    async startOutOfReach(spec, route) {
      // The guard only on a controller of its own; the route's controller beside it.
      const runs = new Map<string, number>();
      const limited = controllerFor({ method: 'GET', path: '/', mount: '/limited' }, runs, [
        SluiceGuard,
      ]);
      const controllers = [limited, controllerFor(route, runs, [])];
      const app = await startNest(
        platform,
        appModule({ ...spec.global, global: false }, controllers),
      );
      return clientOf(app, runs);
    },
  };
}
