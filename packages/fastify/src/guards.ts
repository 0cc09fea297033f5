import { Limit, type LimitInput, SluiceConfigError } from '@sluice/core';
import {
  HttpPipeline,
  type HttpVerdict,
  type LimiterScope,
  splitHttpOptions,
} from '@sluice/core/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fastifyBinding } from './binding.js';
import type {
  ErrorResponse,
  ErrorResponseBuilder,
  RateLimitHook,
  RouteRateLimitOptions,
} from './types.js';

/** One limiter and how its denials are answered. */
export interface Guard {
  pipeline: HttpPipeline<FastifyRequest, FastifyReply>;
  build: ErrorResponseBuilder | undefined;
  /** The hook it runs in. */
  hook: RateLimitHook;
  /** `errorResponse: 'error-handler'`: a denial goes through the app's error handler. */
  thrown: boolean;
}

const ERROR_RESPONSES: readonly ErrorResponse[] = ['reply', 'error-handler'];

const HOOKS: readonly RateLimitHook[] = ['onRequest', 'preParsing', 'preValidation', 'preHandler'];

const LIMIT_FORMS =
  'a throttle string, a Limit, an array of them, an options object, or false (opt out)';

/** The options of a route limit besides the core's. */
const ROUTE_OPTIONS = ['errorResponseBuilder', 'errorResponse', 'hook'] as const;
/** The plugin's options besides the core's. */
const PLUGIN_OPTIONS = [...ROUTE_OPTIONS, 'global', 'openapi'] as const;

/**
 * Builds a guard; throws `SluiceConfigError` for any invalid option or unknown option name.
 *
 * @param where - what the options were given to, for messages: the plugin (`scope`
 *   `'global'`, where `global` is an option too), or a route limit such as
 *   `'config.rateLimit of GET /a'`.
 */
export function guard(
  options: RouteRateLimitOptions & { global?: unknown; openapi?: unknown },
  scope: LimiterScope,
  where: string,
): Guard {
  const [{ errorResponseBuilder: build, errorResponse = 'reply', hook = 'onRequest' }, core] =
    splitHttpOptions(options, scope === 'global' ? PLUGIN_OPTIONS : ROUTE_OPTIONS, where);
  if (build !== undefined && typeof build !== 'function') {
    throw new SluiceConfigError('errorResponseBuilder', build, 'a function (request, verdict)');
  }
  if (!HOOKS.includes(hook)) {
    throw new SluiceConfigError('hook', hook, `one of ${HOOKS.join(', ')}`);
  }
  if (!ERROR_RESPONSES.includes(errorResponse)) {
    throw new SluiceConfigError('errorResponse', errorResponse, "'reply' or 'error-handler'");
  }
  const pipeline = new HttpPipeline(core, fastifyBinding, scope);
  return { pipeline, build, hook, thrown: errorResponse === 'error-handler' };
}

/** `base` with `input` (a limit or options) applied over it. */
export function merge(base: RouteRateLimitOptions, input: unknown): RouteRateLimitOptions {
  if (input === undefined) return base;
  if (typeof input === 'string' || Array.isArray(input) || input instanceof Limit) {
    return { ...base, limit: input as LimitInput };
  }
  if (typeof input === 'object' && input !== null) return { ...base, ...input };
  throw new SluiceConfigError('rateLimit', input, LIMIT_FORMS);
}

/**
 * Runs `guards` in order for one request: `true` when every one allowed (the core wrote
 * the headers of the most restrictive and set `request.rateLimit`), `false` when one denied
 * (the response is sent). Synchronous unless a store is. Throws / rejects only for a
 * failing user callback.
 */
export function runGuards(
  guards: readonly Guard[],
  request: FastifyRequest,
  reply: FastifyReply,
  from = 0,
): boolean | Promise<boolean> {
  for (let i = from; i < guards.length; i++) {
    const g = guards[i]!;
    const verdict = g.pipeline.handle(request, reply);
    if (verdict === undefined) continue;
    if (verdict instanceof Promise) {
      return verdict.then((v) =>
        v === undefined || v.allowed
          ? runGuards(guards, request, reply, i + 1)
          : deny(g, v, request, reply),
      );
    }
    if (!verdict.allowed) return deny(g, verdict, request, reply);
  }
  return true;
}

function deny(g: Guard, v: HttpVerdict, request: FastifyRequest, reply: FastifyReply): false {
  reply.code(v.statusCode);
  const built = g.build === undefined ? undefined : g.build(request, v);
  // An Error sent is Fastify's error handling's (setErrorHandler, else its default).
  if (g.thrown) reply.send(built instanceof Error ? built : deniedError(v, built));
  else if (g.build !== undefined) reply.send(built);
  else reply.type(v.contentType!).send(v.body);
  return false;
}

/**
 * The denial as the error `errorResponse: 'error-handler'` hands to the app's error handler,
 * as @fastify/rate-limit's: `statusCode` (429), `message` (the body's: its `message`, a
 * problem's `detail`, or the text), `verdict`; `body` what `errorResponseBuilder` built.
 */
function deniedError(v: HttpVerdict, built: unknown): Error {
  let body: unknown = v.body;
  if (typeof body === 'string' && v.contentType?.includes('json') === true) body = JSON.parse(body);
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const message = typeof body === 'string' ? body : String(fields.message ?? fields.detail);
  const error = Object.assign(new Error(message), { statusCode: v.statusCode, verdict: v });
  return built === undefined ? error : Object.assign(error, { body: built });
}
