import { Limit, type LimitInput, SluiceConfigError } from '@sluice/core';
import {
  HttpPipeline,
  type HttpVerdict,
  type LimiterScope,
  splitHttpOptions,
} from '@sluice/core/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fastifyBinding } from './binding.js';
import type { ErrorResponseBuilder, RateLimitHook, RouteRateLimitOptions } from './types.js';

/** One limiter and how its denials are answered. */
export interface Guard {
  pipeline: HttpPipeline<FastifyRequest, FastifyReply>;
  build: ErrorResponseBuilder | undefined;
  /** The hook it runs in. */
  hook: RateLimitHook;
}

const HOOKS: readonly RateLimitHook[] = ['onRequest', 'preParsing', 'preValidation', 'preHandler'];

const LIMIT_FORMS =
  'a throttle string, a Limit, an array of them, an options object, or false (opt out)';

/** The options of a route limit besides the core's. */
const ROUTE_OPTIONS = ['errorResponseBuilder', 'hook'] as const;
/** The plugin's options besides the core's. */
const PLUGIN_OPTIONS = [...ROUTE_OPTIONS, 'global'] as const;

/**
 * Builds a guard; throws `SluiceConfigError` for any invalid option or unknown option name.
 *
 * @param where - what the options were given to, for messages: the plugin (`scope`
 *   `'global'`, where `global` is an option too), or a route limit such as
 *   `'config.rateLimit of GET /a'`.
 */
export function guard(
  options: RouteRateLimitOptions & { global?: unknown },
  scope: LimiterScope,
  where: string,
): Guard {
  const [{ errorResponseBuilder: build, hook = 'onRequest' }, core] = splitHttpOptions(
    options,
    scope === 'global' ? PLUGIN_OPTIONS : ROUTE_OPTIONS,
    where,
  );
  if (build !== undefined && typeof build !== 'function') {
    throw new SluiceConfigError('errorResponseBuilder', build, 'a function (request, verdict)');
  }
  if (!HOOKS.includes(hook)) {
    throw new SluiceConfigError('hook', hook, `one of ${HOOKS.join(', ')}`);
  }
  return { pipeline: new HttpPipeline(core, fastifyBinding, scope), build, hook };
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
  if (g.build !== undefined) reply.send(g.build(request, v));
  else reply.type(v.contentType!).send(v.body);
  return false;
}
