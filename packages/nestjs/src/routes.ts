import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { SluiceConfigError } from '@sluice/core';
import { HttpPipeline } from '@sluice/core/http';
import { nestBinding } from './binding.js';
import { checkThrottleOptions, type SluiceConfig } from './config.js';
import { skipsGlobal, throttlesOf } from './decorators.js';
import type { NestPipeline } from './types.js';

const getMetadata = (Reflect as unknown as { getMetadata(k: unknown, t: object): unknown })
  .getMetadata;

/** What the guard runs for one handler: the global limit unless skipped, then its `@Throttle`s. */
export interface HandlerLimits {
  pipelines: readonly NestPipeline[];
  /**
   * `@UseGuards(SluiceGuard)` is on the handler or its controller: the guard runs there (after
   * the guards listed before it), so the global guard leaves the handler to it. Worked out by
   * the global guard on first use.
   */
  local?: boolean;
}

const RequestMethods = [
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'ALL',
  'OPTIONS',
  'HEAD',
  'SEARCH',
];

const firstPath = (value: unknown): string | undefined =>
  Array.isArray(value) ? (value[0] as string | undefined) : (value as string | undefined);

/**
 * The handler's route pattern: controller path + handler path (`/users/:id`), the same for
 * every request it serves; for a handler without a route (a GraphQL resolver),
 * `Class.method`.
 */
export function routePattern(cls: Function, handler: Function): string {
  const base = firstPath(getMetadata(PATH_METADATA, cls));
  const own = firstPath(getMetadata(PATH_METADATA, handler));
  if (own === undefined) return `${cls.name}.${handler.name}`;
  const joined = `/${base ?? ''}/${own}`.replace(/\/+/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/** `GET /users/:id` (or `Class.method`), for messages. */
export function routeName(cls: Function, handler: Function): string {
  const method = getMetadata(METHOD_METADATA, handler);
  const name = typeof method === 'number' ? RequestMethods[method] : undefined;
  const pattern = routePattern(cls, handler);
  return name === undefined ? pattern : `${name} ${pattern}`;
}

/**
 * The limiters of one Nest application: the global one and one per `@Throttle` per
 * handler, built when the application starts (so a malformed limit fails then) and
 * looked up per request by controller and handler.
 */
export class SluiceRoutes {
  /** The module's parsed options. */
  readonly config: SluiceConfig;
  readonly #global: NestPipeline | undefined;
  readonly #handlers = new WeakMap<Function, WeakMap<Function, HandlerLimits>>();
  /** Every pipeline built, for {@link SluiceRoutes.ready}. */
  readonly #pipelines: NestPipeline[] = [];

  constructor(config: SluiceConfig) {
    this.config = config;
    this.#global =
      config.globalLimit === undefined
        ? undefined
        : new HttpPipeline(config.globalLimit, nestBinding(undefined, this), 'global');
    if (this.#global !== undefined) this.#pipelines.push(this.#global);
  }

  /**
   * Waits for the store of every limiter built so far to be ready (`Store.ready`): rejects
   * with the first store's reason (a `StoreNotReadyError` naming `migrate()` for a
   * PostgresStore never migrated). The module's init calls it after building every limit.
   */
  ready(): Promise<void> {
    return Promise.all(this.#pipelines.map((p) => p.limiter.ready())).then(() => undefined);
  }

  /** Whether `handler` of `cls` has a limit of its own (a `@Throttle` on it or its class). */
  hasThrottle(cls: Function, handler: Function): boolean {
    return throttlesOf(cls, handler).length > 0;
  }

  /**
   * The plan of `handler` of `cls`, built on first use (the application's start builds
   * every controller's).
   * @throws SluiceConfigError for a malformed `@Throttle`, naming the class and handler.
   */
  limitsFor(cls: Function, handler: Function): HandlerLimits {
    let byHandler = this.#handlers.get(cls);
    if (byHandler === undefined) {
      byHandler = new WeakMap();
      this.#handlers.set(cls, byHandler);
    }
    let plan = byHandler.get(handler);
    if (plan === undefined) {
      plan = this.#build(cls, handler);
      byHandler.set(handler, plan);
    }
    return plan;
  }

  #build(cls: Function, handler: Function): HandlerLimits {
    const pipelines: NestPipeline[] = [];
    if (this.#global !== undefined && !skipsGlobal(cls, handler)) pipelines.push(this.#global);
    const entries = throttlesOf(cls, handler);
    if (entries.length === 0) return { pipelines };
    const where = `@Throttle() on ${cls.name}.${String(handler.name)} (${routeName(cls, handler)})`;
    const binding = nestBinding(routePattern(cls, handler), this);
    for (const { limit, options } of entries) {
      try {
        const own = checkThrottleOptions(options, where);
        const pipeline = new HttpPipeline(
          { ...this.config.shared, ...own, limit },
          binding,
          'route',
        );
        pipelines.push(pipeline);
        this.#pipelines.push(pipeline);
      } catch (error) {
        if (!(error instanceof SluiceConfigError)) throw error;
        throw new SluiceConfigError(error.option, undefined, '', {
          message: `${error.message} (in ${where})`,
        });
      }
    }
    return { pipelines };
  }
}
