// The NestJS apps of bench:http: hello world on Nest (Express or Fastify platform), unlimited, behind
// sluice or @nestjs/throttler (memory or Redis storage). Decorators applied as calls: no compiler setting.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import {
  ALLOW,
  BODY,
  type Built,
  DENY,
  redisClient,
  sluiceRedisOptions,
  type Variant,
} from './http-apps.js';

export const NEST_FRAMEWORKS = ['nest-express', 'nest-fastify'] as const;
export type NestFramework = (typeof NEST_FRAMEWORKS)[number];

/** The limiter module (and its global guard provider) for `variant`, or none. */
async function limiter(variant: Variant, redisPort?: number): Promise<unknown[]> {
  if (variant === 'none') return [];
  if (variant === 'sluice' || variant === 'sluice-deny' || variant === 'sluice-redis') {
    const { SluiceModule } = await import('@sluice/nestjs');
    if (variant !== 'sluice-redis')
      return [SluiceModule.forRoot({ limit: variant === 'sluice-deny' ? DENY : ALLOW })];
    return [SluiceModule.forRoot(await sluiceRedisOptions(variant, redisPort))];
  }
  if (variant === 'peer' || variant === 'peer-deny' || variant === 'peer-redis') {
    const { ThrottlerModule } = await import('@nestjs/throttler');
    const throttlers = [
      variant === 'peer-deny' ? { ttl: 3_600_000, limit: 1 } : { ttl: 60_000, limit: 1e9 },
    ];
    if (variant !== 'peer-redis') return [ThrottlerModule.forRoot(throttlers)];
    const { ThrottlerStorageRedisService } = await import('@nest-lab/throttler-storage-redis');
    const client = await redisClient(redisPort);
    return [
      ThrottlerModule.forRoot({
        throttlers,
        storage: new ThrottlerStorageRedisService(client as never),
      }),
    ];
  }
  throw new Error(`nest: no variant ${variant}`);
}

/** The providers of `variant`: @nestjs/throttler's guard is registered by the app. */
async function providers(variant: Variant): Promise<unknown[]> {
  if (!variant.startsWith('peer')) return [];
  const { APP_GUARD } = await import('@nestjs/core');
  const { ThrottlerGuard } = await import('@nestjs/throttler');
  return [{ provide: APP_GUARD, useClass: ThrottlerGuard }];
}

async function nest(platform: 'express' | 'fastify', variant: Variant, redisPort?: number) {
  const { Controller, Get, Module } = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  class HelloController {
    hello() {
      return BODY;
    }
  }
  const proto = HelloController.prototype;
  Get()(proto, 'hello', Object.getOwnPropertyDescriptor(proto, 'hello')!);
  Controller()(HelloController);
  class AppModule {}
  Module({
    imports: (await limiter(variant, redisPort)) as never[],
    controllers: [HelloController],
    providers: (await providers(variant)) as never[],
  })(AppModule);
  const adapter =
    platform === 'express'
      ? new (await import('@nestjs/platform-express')).ExpressAdapter()
      : new (await import('@nestjs/platform-fastify')).FastifyAdapter();
  const app = await NestFactory.create(AppModule, adapter, { logger: false });
  if (platform === 'express') {
    const instance = app.getHttpAdapter().getInstance() as { set(k: string, v: unknown): void };
    instance.set('etag', false);
    instance.set('x-powered-by', false);
  }
  return app;
}

function builder(platform: 'express' | 'fastify') {
  return async (variant: Variant, redisPort?: number): Promise<Built> => {
    const app = await nest(platform, variant, redisPort);
    return {
      async listen() {
        await app.listen(0, '127.0.0.1');
        const port = (app.getHttpServer().address() as AddressInfo).port;
        return { port, close: () => app.close() };
      },
      async listener() {
        throw new Error('nest apps are measured over HTTP only');
      },
    };
  };
}

/** The Nest app on `platform` with `variant`; `redisPort` for the `-redis` variants. */
export const NEST_BUILDERS: Record<NestFramework, ReturnType<typeof builder>> = {
  'nest-express': builder('express'),
  'nest-fastify': builder('fastify'),
};
