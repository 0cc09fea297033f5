import {
  type DynamicModule,
  Global,
  type InjectionToken,
  Module,
  type ModuleMetadata,
  type OptionalFactoryDependency,
  type Provider,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { parseModuleOptions, type SluiceConfig } from './config.js';
import { SLUICE_CONFIG } from './constants.js';
import { ThrottleExceptionFilter } from './exception.js';
import { SluiceExplorer } from './explorer.js';
import { GlobalSluiceGuard, SluiceGuard } from './guard.js';
import { SluiceRoutes } from './routes.js';
import type { SluiceModuleOptions } from './types.js';

/** Options of {@link SluiceModule.forRootAsync}: a factory for the module's options. */
export interface SluiceModuleAsyncOptions {
  /** Modules whose providers the factory injects (e.g. `ConfigModule`). */
  imports?: ModuleMetadata['imports'];
  /** What `useFactory` receives, in order. */
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** Returns the options of `forRoot` (may be async). */
  // biome-ignore lint/suspicious/noExplicitAny: Nest's factory signature
  useFactory: (...args: any[]) => SluiceModuleOptions | Promise<SluiceModuleOptions>;
}

/** Lets every request through: the global guard's place when `global: false`. */
const allowAll = { canActivate: () => true };

function providers(config: Provider): Provider[] {
  return [
    config,
    {
      provide: SluiceRoutes,
      useFactory: (c: SluiceConfig) => new SluiceRoutes(c),
      inject: [SLUICE_CONFIG],
    },
    SluiceGuard,
    SluiceExplorer,
    {
      provide: APP_GUARD,
      useFactory: (c: SluiceConfig, routes: SluiceRoutes) =>
        c.global ? new GlobalSluiceGuard(routes) : allowAll,
      inject: [SLUICE_CONFIG, SluiceRoutes],
    },
    { provide: APP_FILTER, useClass: ThrottleExceptionFilter },
  ];
}

/**
 * sluice for NestJS (as `ThrottlerModule` is @nestjs/throttler's): the global limit and
 * the options every `@Throttle` shares, and `SluiceGuard` registered as a global guard
 * (unless `global: false`). A global module: import it once, in the root module.
 *
 * @example
 * ```ts
 * @Module({ imports: [SluiceModule.forRoot({ limit: 'throttle:60,1' })], controllers: [Users] })
 * export class AppModule {}
 * ```
 */
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest module is a class with static factories
export class SluiceModule {
  /**
   * @param options - the HTTP options of every sluice adapter (`limit` is the global limit;
   *   `false`: none), plus `global` and `getRequestResponse`.
   * @throws SluiceConfigError for an unknown option name (also @nestjs/throttler's `ttl`,
   *   `throttlers`, `storage`…, with what to write instead); an invalid value when the
   *   application starts.
   */
  static forRoot(options: SluiceModuleOptions = {}): DynamicModule {
    const config = parseModuleOptions(options, 'SluiceModule.forRoot()');
    return {
      module: SluiceModule,
      imports: [DiscoveryModule],
      providers: providers({ provide: SLUICE_CONFIG, useValue: config }),
      exports: [SLUICE_CONFIG, SluiceRoutes, SluiceGuard],
    };
  }

  /**
   * The options from a factory (configuration read at startup):
   * `forRootAsync({ imports: [ConfigModule], inject: [ConfigService], useFactory: (c) => ({ limit: c.get('LIMIT') }) })`.
   * @throws SluiceConfigError when the application starts, for what `forRoot` rejects.
   */
  static forRootAsync(options: SluiceModuleAsyncOptions): DynamicModule {
    const config: Provider = {
      provide: SLUICE_CONFIG,
      useFactory: async (...args: unknown[]) =>
        parseModuleOptions(await options.useFactory(...args), 'SluiceModule.forRootAsync()'),
      inject: options.inject ?? [],
    };
    return {
      module: SluiceModule,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: providers(config),
      exports: [SLUICE_CONFIG, SluiceRoutes, SluiceGuard],
    };
  }
}
// Nest's decorators applied as calls (`@Global() @Module({})`): the package needs no
// decorator compiler setting.
Module({})(SluiceModule);
Global()(SluiceModule);
