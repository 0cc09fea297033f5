import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { SluiceConfigError } from '@sluice/core';
import { SLUICE_CONFIG, THROTTLE_METADATA } from './constants.js';
import { guardedBy } from './guard.js';
import { markExplored } from './module-check.js';
import { routeName, SluiceRoutes } from './routes.js';

const reflect = Reflect as unknown as {
  getMetadata(k: unknown, t: object): unknown;
  getOwnMetadata(k: unknown, t: object): unknown;
};

/**
 * When the application starts: builds the limiters of every handler of every controller
 * (and of every provider with a `@Throttle`: GraphQL resolvers), so that a malformed
 * `@Throttle` fails then, naming the controller and handler. With `global: false`, a
 * `@Throttle` on a handler that `SluiceGuard` does not guard is an error too: it would be a
 * silently unlimited route. Then every limit's store must be ready (`Store.ready`): a
 * PostgresStore never migrated fails the start, naming `migrate()`.
 */
export class SluiceExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly routes: SluiceRoutes,
    private readonly modules: ModulesContainer,
  ) {}

  /**
   * Builds every limit, then waits for their stores to be ready: a store that cannot
   * decide (a PostgresStore never migrated) fails the application's start, naming the fix.
   */
  onModuleInit(): Promise<void> {
    this.#buildAll();
    return this.routes.ready();
  }

  #buildAll(): void {
    const controllers = this.discovery.getControllers();
    const providers = this.discovery.getProviders();
    this.#checkOneModule(providers);
    for (const wrapper of [...controllers, ...providers]) {
      const cls = wrapper.metatype as Function | undefined;
      if (typeof cls !== 'function' || wrapper.isAlias) continue;
      const proto = cls.prototype as Record<string, unknown> | undefined;
      if (proto === undefined || proto === null) continue;
      const isController = controllers.includes(wrapper);
      const classThrottled = reflect.getMetadata(THROTTLE_METADATA, cls) !== undefined;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = proto[name];
        if (typeof handler !== 'function') continue;
        const routed = reflect.getMetadata(PATH_METADATA, handler) !== undefined;
        const throttled =
          classThrottled || reflect.getOwnMetadata(THROTTLE_METADATA, handler) !== undefined;
        if (!(isController ? routed || throttled : throttled)) continue;
        this.routes.limitsFor(cls, handler);
        if (throttled) markExplored(wrapper.instance);
        if (!this.routes.config.global && throttled && !guardedBy(cls) && !guardedBy(handler)) {
          throw new SluiceConfigError('global', false, '', {
            message:
              `sluice: ${routeName(cls, handler)} (${cls.name}.${name}) has a @Throttle but ` +
              'SluiceGuard does not guard it (SluiceModule global: false): add ' +
              '@UseGuards(SluiceGuard) to it or its controller, or leave global on',
          });
        }
      }
    }
  }

  /**
   * One SluiceModule per application: a second `forRoot` / `forRootAsync` (in a feature
   * module) would have options of its own that no guard reads. Names the modules importing it.
   */
  #checkOneModule(providers: ReturnType<DiscoveryService['getProviders']>): void {
    const configs = providers.filter((w) => w.token === SLUICE_CONFIG);
    if (configs.length <= 1) return;
    const importers: string[] = [];
    for (const module of this.modules.values()) {
      for (const imported of module.imports) {
        if (
          imported?.metatype?.name === 'SluiceModule' &&
          module.metatype?.name !== 'SluiceModule'
        ) {
          importers.push(module.metatype?.name ?? 'a module');
        }
      }
    }
    throw new SluiceConfigError('forRoot', undefined, '', {
      message:
        `sluice: SluiceModule.forRoot() (or forRootAsync()) is imported ${configs.length} times ` +
        `(by ${[...new Set(importers)].join(', ') || 'several modules'}): a second one's options ` +
        'would be ignored. Import it once, in the root module (it is global), and give a ' +
        "feature's own limits with @Throttle(limit, options) on its controllers",
    });
  }
}
// Nest's decorators applied as calls: the package needs no decorator compiler setting.
Injectable()(SluiceExplorer);
Inject(DiscoveryService)(SluiceExplorer, undefined, 0);
Inject(MetadataScanner)(SluiceExplorer, undefined, 1);
Inject(SluiceRoutes)(SluiceExplorer, undefined, 2);
Inject(ModulesContainer)(SluiceExplorer, undefined, 3);
