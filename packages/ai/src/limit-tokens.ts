import { ipSubject, SluiceConfigError } from '@sluice/core';
import { asBody, bodyKind, isStreamed } from './body.js';
import { meterStream } from './meter-stream.js';
import { openaiDenial, openaiHeaders } from './openai-headers.js';
import type { TokenCharge } from './token-charge.js';
import { type TokenLimiterOptions, tokenLimiter } from './token-limiter.js';

/**
 * A fetch handler: Hono's `app.fetch`, a Next.js route, `Bun.serve`'s `fetch`, a Worker's
 * (its arguments after the `Request`, such as an env, are passed through).
 */
export type FetchHandler<Rest extends unknown[] = unknown[]> = (
  req: Request,
  ...rest: Rest
) => Response | Promise<Response>;

/** Options of {@link limitTokens}: the options of `tokenLimiter`, and whose budget a call is. */
export interface LimitTokensOptions extends TokenLimiterOptions {
  /**
   * The client IP of a request (`@sluice/fetch`'s `ip.node()`, `ip.bun()`, `ip.cloudflare()`,
   * `ip.forwardedFor({ trustedHops })`…): the key when `key` is not given (IPv6 by /64).
   */
  ip?: (req: Request, env?: unknown) => string | undefined;
  /** Whose budget a call is: an API key's id, a team (never the secret key itself in clear: hash it). */
  key?: (req: Request, body: Record<string, unknown>) => string | Promise<string>;
}

/**
 * An OpenAI-compatible gateway's handler under a token budget (docs/guide/ai.md): each
 * request with a JSON body is charged up front by a `tokenLimiter`, answered 429 as OpenAI
 * answers when denied (`Retry-After`, `retry-after-ms`, OpenAI's error body), else passed to
 * `handler` with `stream_options.include_usage` set on streamed Chat Completions, and its
 * answer metered (`meterStream`): settled to the reported usage, cancelled on a non-2xx
 * answer or a throw. Every answer carries OpenAI's `x-ratelimit-*-tokens` headers (and
 * `-requests` with a request limit). Requests without a JSON object body (`GET /v1/models`)
 * pass uncharged.
 *
 * @throws {@link SluiceConfigError} at creation for neither `key` nor `ip`, a bad one, or
 *   anything `tokenLimiter` refuses. A request whose key cannot be told (no IP) fails
 *   (the runtime answers 500), never passes unlimited.
 * @example
 * ```ts
 * const app = new Hono().post('/v1/chat/completions', (c) => fetch(upstream(c.req.raw)));
 * export default { fetch: limitTokens(app.fetch, { limit: '100000/min', key: teamOf }) };
 * ```
 */
export function limitTokens<Rest extends unknown[] = []>(
  handler: FetchHandler<Rest>,
  options: LimitTokensOptions,
): (req: Request, ...rest: Rest) => Promise<Response> {
  if (typeof handler !== 'function')
    throw new SluiceConfigError('handler', handler, 'a fetch handler (req) => Response');
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { limit, key | ip, … }');
  }
  const { ip, key, ...rest } = options;
  if (key === undefined && ip === undefined) {
    throw new SluiceConfigError(
      'key',
      undefined,
      'a function (req, body) => string, or the "ip" option',
    );
  }
  if (key !== undefined && typeof key !== 'function')
    throw new SluiceConfigError('key', key, 'a function (req, body) => string');
  if (ip !== undefined && typeof ip !== 'function')
    throw new SluiceConfigError('ip', ip, 'an IP resolver (req) => string | undefined');
  const limiter = tokenLimiter(rest);
  const call = handler as FetchHandler;
  const limited = async (req: Request, ...rest: unknown[]): Promise<Response> => {
    const env = rest[0];
    const parsed =
      req.body === null
        ? undefined
        : await req
            .clone()
            .json()
            .catch(() => undefined);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return call(req, ...rest);
    const body = asBody(parsed);
    let subject: string;
    if (key !== undefined) subject = await key(req, body);
    else {
      const address = ip!(req, env);
      if (address === undefined || address === '')
        throw new Error('sluice: limitTokens could not tell the client IP');
      subject = `ip:${ipSubject(address, 64)}`;
    }
    const charge = await limiter.charge(body, { key: subject, signal: req.signal });
    if (!charge.allowed) return openaiDenial(charge);
    let res: Response;
    try {
      res = await call(withUsage(req, body), ...rest);
    } catch (error) {
      await charge.cancel();
      throw error;
    }
    return withHeaders(meterStream(res, charge), charge);
  };
  return limited as (req: Request, ...rest: Rest) => Promise<Response>;
}

/** `req`, with `stream_options.include_usage` set when it is a streamed Chat Completions call. */
function withUsage(req: Request, body: Record<string, unknown>): Request {
  if (!isStreamed(body) || bodyKind(body) !== 'chat') return req;
  const options = body.stream_options as Record<string, unknown> | undefined;
  if (options?.include_usage === true) return req;
  const text = JSON.stringify({ ...body, stream_options: { ...options, include_usage: true } });
  const headers = new Headers(req.headers);
  headers.delete('content-length');
  return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
}

function withHeaders(res: Response, charge: TokenCharge): Response {
  for (const [name, value] of openaiHeaders(charge)) res.headers.set(name, value);
  return res;
}
