import { type INestApplicationContext, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { openApiOfLimiters } from '@sluice/core/http';
import { guardedBy } from './guard.js';
import { SluiceRoutes } from './routes.js';

/**
 * `addSluiceApiResponses(app)`: the OpenAPI description of sluice's answers on every limited
 * handler, as @nestjs/swagger's `@ApiResponse` records it, so that
 * `SwaggerModule.createDocument` writes it. The description itself is the core's
 * (`openApiOfLimiters`); this file only translates it. See docs/guide/features/openapi.md.
 */

/**
 * The metadata key of @nestjs/swagger's `@ApiResponse` (its `DECORATORS.API_RESPONSE`):
 * written here without importing @nestjs/swagger, an optional tool of the application
 * (test/openapi.test.ts holds it equal to the installed version's).
 */
export const API_RESPONSE_METADATA = 'swagger/apiResponse';

type Responses = Record<string, Record<string, unknown>>;
type MetadataReflect = {
  getMetadata(key: unknown, target: object): unknown;
  defineMetadata(key: unknown, value: unknown, target: object): void;
  deleteMetadata(key: unknown, target: object): boolean;
};
const reflect = Reflect as unknown as MetadataReflect;

/** What a handler's responses were before sluice's were added: a second call starts from them. */
const before = new WeakMap<Function, Responses | undefined>();

/** The status @nestjs/swagger gives a handler without `@ApiResponse`: `@HttpCode`, 201 for POST, else 200. */
function defaultStatus(handler: Function): string {
  const code = reflect.getMetadata(HTTP_CODE_METADATA, handler);
  if (typeof code === 'number') return String(code);
  return reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.POST ? '201' : '200';
}

/**
 * Adds sluice's responses to every handler the application's `SluiceGuard` limits (the
 * module's global limit unless `@SkipThrottle()`, a `@Throttle` on the handler or its
 * controller; with `global: false`, only where `@UseGuards(SluiceGuard)` puts the guard),
 * as `@ApiResponse` would: the denial's response (`429`, or the `statusCode` option, with
 * `Retry-After`, the rate-limit headers of the `headers` option and sluice's JSON body
 * schema) and the rate-limit headers on the handler's 2xx responses (on the one
 * @nestjs/swagger would write, `@HttpCode`'s, 201 for POST, else 200, when it declares
 * none). A status the handler declares itself keeps its own description and body; handlers
 * sluice does not limit are not changed. Call it after `NestFactory.create` and before
 * `SwaggerModule.createDocument`; calling it again (another application) starts from the
 * handler's own responses. A filter of your own for `ThrottleException` that sends another
 * body is not seen: document that body with your own `@ApiResponse({ status: 429 })`.
 *
 * @param app - the application (its `SluiceModule` is imported).
 * @throws `SluiceConfigError` for a malformed `@Throttle`, as the application's start would;
 *   Nest's own error when the application has no `SluiceModule`.
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule);
 * addSluiceApiResponses(app);
 * const document = SwaggerModule.createDocument(app, new DocumentBuilder().build());
 * ```
 */
export function addSluiceApiResponses(app: INestApplicationContext): void {
  const routes = app.get(SluiceRoutes, { strict: false });
  const discovery = app.get(DiscoveryService, { strict: false });
  const scanner = new MetadataScanner();
  for (const wrapper of discovery.getControllers()) {
    const cls = wrapper.metatype as Function | undefined;
    const proto = cls?.prototype as Record<string, unknown> | undefined;
    if (typeof cls !== 'function' || proto === undefined || wrapper.isAlias) continue;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name];
      if (typeof handler !== 'function') continue;
      if (reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      restore(handler);
      const guarded = routes.config.global || guardedBy(cls) || guardedBy(handler);
      const pipelines = guarded ? routes.limitsFor(cls, handler).pipelines : [];
      if (pipelines.length > 0) addTo(handler, pipelines);
    }
  }
}

/** Puts back the responses a handler had before an earlier call added sluice's. */
function restore(handler: Function): void {
  if (!before.has(handler)) return;
  const own = before.get(handler);
  if (own === undefined) reflect.deleteMetadata(API_RESPONSE_METADATA, handler);
  else reflect.defineMetadata(API_RESPONSE_METADATA, own, handler);
  before.delete(handler);
}

function addTo(
  handler: Function,
  pipelines: ReturnType<SluiceRoutes['limitsFor']>['pipelines'],
): void {
  const spec = openApiOfLimiters(pipelines.map((p) => ({ limiter: p.limiter })));
  if (!before.has(handler)) {
    before.set(handler, reflect.getMetadata(API_RESPONSE_METADATA, handler) as Responses);
  }
  const own = before.get(handler);
  const responses: Responses = { ...own };
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] ??= { ...r };
  }
  if (Object.keys(spec.headers).length > 0) {
    const ok = Object.keys(own ?? {}).filter((s) => s.startsWith('2'));
    if (ok.length === 0) ok.push(defaultStatus(handler));
    for (const status of ok) {
      const entry = responses[status] ?? { description: '' };
      const headers = entry.headers as Record<string, unknown> | undefined;
      responses[status] = { ...entry, headers: { ...spec.headers, ...headers } };
    }
  }
  reflect.defineMetadata(API_RESPONSE_METADATA, responses, handler);
}
