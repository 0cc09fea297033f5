import { SelfThrottledError, WaitTooLongError } from './errors.js';
import { parseRateLimitHeaders, type RateLimitInfo } from './headers/parse.js';
import { type PacedFetchConfig, type PacedFetchOptions, parseOptions } from './options.js';
import { OriginState, type PolicyState, type Ticket } from './pacer/origin-state.js';
import {
  attemptArgs,
  credentialsOf,
  estimateTokens,
  replayable,
  signalOf,
  targetOf,
} from './request.js';

/**
 * The shape of `fetch` that {@link pacedFetch} wraps and returns: the global `fetch`, undici's,
 * node-fetch's, a test double. Only `status`, `headers.get` and, for a 429 / 503 problem
 * details body, `clone().json()` and `body.cancel()` are read from its responses.
 *
 * @example
 * ```ts
 * const mine: FetchLike = (input: string) => fetch(input, { headers: { 'x-app': 'demo' } });
 * const api = pacedFetch(mine); // typed as `mine`
 * ```
 */
export type FetchLike = (input: never, init?: never) => Promise<Response>;

/** {@link FetchLike} as this module calls it. */
type AnyFetch = (input: unknown, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `fetch` in a `fetch` of the same signature that paces itself from the server's
 * responses, so it waits before it is denied instead of after:
 *
 * - it learns each policy from the responses' headers (`RateLimit` / `RateLimit-Policy` of
 *   draft-ietf-httpapi-ratelimit-headers-06 to -11 and the next revision's `a` / `w` / `c`,
 *   `Beta-RateLimit`, `X-RateLimit-*`, OpenAI's and Anthropic's, see
 *   {@link parseRateLimitHeaders}), per origin, policy name and partition key (`pk`);
 * - a token policy (OpenAI, Anthropic) counts each request at what `estimate` says it
 *   costs; without `estimate` token policies do not pace;
 * - with `selfThrottle`, an origin whose answers carry no rate-limit policy is throttled by
 *   Google SRE's client-side formula (a local rejection is a {@link SelfThrottledError});
 * - with nothing learnt yet for an origin it sends one request and holds the rest until its
 *   response arrives, so a cold burst does not run into the limit;
 * - before sending, it waits while a policy the request's route last came back with is
 *   spent, until the policy's reset (a route is a path with its id-like segments grouped:
 *   `/items/1` and `/items/2` are `/items/:id`); a route with no response yet sends one request
 *   and holds the rest until its response; callers with different `Authorization` headers are
 *   paced apart;
 * - a `qu="concurrent-requests"` policy caps its requests in flight at its quota;
 * - a 429 or 503 with `Retry-After` (seconds or an HTTP date) is sent again after that wait,
 *   at most `retries` times; then the 429 / 503 is returned as it is;
 * - a 429 without `Retry-After` whose headers show quota left (no policy spent) can never be
 *   admitted by waiting (its cost is above the policy's capacity): it rejects at once with
 *   {@link WaitTooLongError} (`retryAfterMs: Infinity`), not retried;
 * - a wait longer than what is left of `maxWait` rejects at once with
 *   {@link WaitTooLongError} (`retryAfterMs`, `policy`), without sending;
 * - a waiting request rejects with its signal's reason when its `AbortSignal` aborts.
 *
 * Malformed headers never throw and never make a request wait longer than `maxWait`: they
 * are ignored. Each `pacedFetch` keeps its own knowledge: share one per API client.
 * Works in Node, browsers and edge runtimes (no Node-only import).
 *
 * @param fetch - the `fetch` to wrap (`globalThis.fetch`, ky's or axios's underlying one…).
 * @param options - {@link PacedFetchOptions}: `maxWait` (ms or `'30s'`, default 60 s), `retries`
 *   (default 2), `selfThrottle` (default false), `estimate` (a request's tokens), `clock`,
 *   `sleep` and `random` (tests).
 * @returns a function with `fetch`'s signature.
 * @throws {@link SluiceConfigError} at creation for a bad option or an unknown option name.
 *   A call rejects with {@link WaitTooLongError} past `maxWait`, {@link SelfThrottledError}
 *   when throttled locally, and a `TypeError` when `estimate` gives no number >= 0.
 *
 * @example
 * ```ts
 * import { pacedFetch } from '@sluice/client';
 *
 * const api = pacedFetch(fetch, { maxWait: '30s' });
 * // 1,000 calls at once: sent as fast as the server's policy allows, not faster.
 * const responses = await Promise.all(ids.map((id) => api(`https://api.example.com/items/${id}`)));
 *
 * // OpenAI paced by requests and tokens (a call's tokens from its body):
 * const estimate = async (request: Request) => ((await request.json()).max_tokens ?? 1024) + 500;
 * const openai = new OpenAI({ fetch: pacedFetch(fetch, { estimate }), maxRetries: 0 });
 *
 * // A server with no rate-limit headers: shed locally when it refuses most requests.
 * const legacy = pacedFetch(fetch, { selfThrottle: true });
 * ```
 */
export function pacedFetch<F extends FetchLike>(fetch: F, options?: PacedFetchOptions): F {
  const config = parseOptions(fetch, options);
  const call = fetch as unknown as AnyFetch;
  const origins = new Map<string, OriginState>();
  const originFor = (origin: string): OriginState => {
    let state = origins.get(origin);
    if (state === undefined) {
      state = new OriginState(config.clock, config.sleep);
      origins.set(origin, state);
    }
    return state;
  };
  const paced = (input: unknown, init?: RequestInit): Promise<Response> => {
    const target = targetOf(input);
    if (target === undefined) return call(input, init);
    const key = target.origin + credentialsOf(input, init);
    return send(call, config, originFor(key), target.route, input, init);
  };
  return paced as unknown as F;
}

// biome-ignore lint/complexity/useMaxParams: one call per request sent: fetch's own arguments and the pacer's state, positional
async function send(
  fetch: AnyFetch,
  config: PacedFetchConfig,
  state: OriginState,
  route: string,
  input: unknown,
  init: RequestInit | undefined,
): Promise<Response> {
  const signal = signalOf(input, init);
  const deadline = config.clock() + config.maxWait;
  const retries = replayable(init) ? config.retries : 0;
  const tokens =
    config.estimate === undefined ? undefined : await estimateTokens(config.estimate, input, init);
  for (let attempt = 0; ; attempt++) {
    if (config.selfThrottle) throttleSelf(config, state);
    const ticket = await admit(config, state, { route, deadline, signal, tokens });
    let response: Response;
    try {
      response = await fetch(attemptArgs(input, attempt >= retries), init);
    } catch (error) {
      state.record(ticket, undefined, config.clock());
      throw error;
    }
    const now = config.clock();
    const info = safeParse(response, now);
    const status = response.status;
    if (status !== 429 && status !== 503) state.throttle.accept(now);
    const retryable = (status === 429 || status === 503) && info.retryAt !== undefined;
    const violated = retryable ? await violatedPolicies(response, info) : undefined;
    const blocked = state.record(ticket, info, now, retryable ? info.retryAt : undefined, violated);
    if (status === 429 && info.retryAt === undefined && neverAdmitted(info)) {
      const names = await violatedPolicies(response, info);
      await cancelBody(response);
      throw WaitTooLongError.never(names?.[0] ?? info.policies[0]?.name);
    }
    if (!retryable || attempt >= retries) return response;
    const wait = info.retryAt! - now;
    await cancelBody(response);
    if (now + wait > deadline) {
      throw new WaitTooLongError(wait, blocked?.name ?? violated?.[0], config.maxWait);
    }
  }
}

/**
 * `selfThrottle`: counts the attempt and, while the origin's latest answer carried no
 * rate-limit policy, rejects it with probability max(0, (requests - 2·accepts) / (requests + 1)).
 */
function throttleSelf(config: PacedFetchConfig, state: OriginState): void {
  const now = config.clock();
  const { requests, accepts } = state.throttle.counts(now);
  const p = state.throttle.probability(now);
  state.throttle.request(now);
  if (state.headed) return;
  // One draw per attempt, also when p is 0: a seeded trace stays aligned.
  if (config.random() < p) throw new SelfThrottledError(p, requests, accepts);
}

/** One call being paced: its route, its deadline (ms on the clock), signal and tokens. */
interface Call {
  route: string;
  deadline: number;
  signal: AbortSignal | undefined;
  tokens: number | undefined;
}

/**
 * Waits until `state` lets a request to `route` go, within `deadline`, and records it as
 * sent in the same synchronous step as the check (so two callers never take one slot).
 */
async function admit(config: PacedFetchConfig, state: OriginState, call: Call): Promise<Ticket> {
  const { route, deadline, signal, tokens } = call;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    const now = config.clock();
    const gate = state.check(route, now, tokens);
    if (gate.go) return state.send(route, gate, now, tokens);
    if (gate.until !== undefined) {
      const wait = gate.until - now;
      if (now + wait > deadline) {
        throw new WaitTooLongError(wait, gate.policy?.name, config.maxWait);
      }
      await state.waiters.wait(gate.until, false, signal);
      continue;
    }
    // Waiting for a response: the probe of a cold origin, a spent policy's requests in flight,
    // a concurrency slot.
    const left = deadline - now;
    if (left <= 0) {
      if (gate.probe) return state.send(route, { go: true, probe: false, policies: [] }, now);
      throw new WaitTooLongError(estimate(gate.policy), gate.policy?.name, config.maxWait);
    }
    await state.waiters.wait(deadline, true, signal);
  }
}

/**
 * Whether a 429 without `Retry-After` says the request can never be admitted: it reports
 * its policies and none of them is spent (each has units remaining), so no wait would
 * change the answer (sluice's answer to a request whose cost is above the capacity). A
 * bare 429, or one with a spent policy or a token policy, is left to the pacer as before.
 */
function neverAdmitted(info: RateLimitInfo): boolean {
  const policies = info.policies;
  if (policies.length === 0) return false;
  for (const p of policies) {
    // Tokens left may still be fewer than the request needs: no proof it can never pass.
    if (p.tokens || p.remaining === undefined || p.remaining <= 0) return false;
  }
  return true;
}

/** The wait to report when a response was awaited past `maxWait`: the policy's window, else 1 s. */
function estimate(policy: PolicyState | undefined): number {
  return policy?.windowMs ?? 1000;
}

/** {@link parseRateLimitHeaders}, which never throws, guarded against odd `headers` objects too. */
function safeParse(response: Response, now: number): RateLimitInfo {
  try {
    return parseRateLimitHeaders(response.headers, now);
  } catch {
    return { style: undefined, policies: [], retryAt: undefined, reason: undefined };
  }
}

/**
 * The policies a 429 / 503 names: the `violated-policies` of an RFC 9457 problem details
 * body (draft-11's problem types), OpenAI's `error.type` (`requests` / `tokens`), else the
 * `RateLimit-Reason` field.
 */
async function violatedPolicies(
  response: Response,
  info: RateLimitInfo,
): Promise<string[] | undefined> {
  const reason = info.reason === undefined ? undefined : [info.reason];
  try {
    const type = response.headers.get('content-type') ?? '';
    if (!type.includes('json')) return reason;
    const body = (await response.clone().json()) as Record<string, unknown>;
    const names = type.includes('problem+json') ? body?.['violated-policies'] : undefined;
    if (Array.isArray(names)) return names.filter((n): n is string => typeof n === 'string');
    const kind = (body?.error as { type?: unknown } | undefined)?.type;
    if (info.style === 'openai' && (kind === 'requests' || kind === 'tokens')) return [kind];
    return reason;
  } catch {
    return reason;
  }
}

/** Frees a body that will not be read (a 429 about to be retried). */
async function cancelBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Already read or locked: nothing to free.
  }
}
