import {
  throttles as defaultThrottles,
  type Limit,
  type LimitInput,
  type MetricsOption,
  type RequestView,
  SluiceConfigError,
} from '@sluice/core';
import {
  PROTOCOL_STORE_OPTIONS,
  ProtocolLimiter,
  type ProtocolStoreOptions,
  protocolStoreOptions,
} from '@sluice/core/protocol';
import {
  checkOptionNames,
  type LimitAlgorithmFactory,
  limitAlgorithm,
  resolveLimitInput,
} from '@sluice/core/store';
import { asBody, modelOf } from './body.js';
import { type EstimateOptions, estimator, inputTokensOf, outputTokensOf } from './estimate.js';
import { aiMetrics } from './metrics.js';
import { checkPrice, costOf, type ModelPrice, type PriceLookup, type PriceTable } from './price.js';
import { type LimitKind, type TokenCharge, tokenCharge } from './token-charge.js';

/** Options of {@link tokenLimiter}. */
export interface TokenLimiterOptions extends Omit<ProtocolStoreOptions, 'ipv6Subnet'> {
  /**
   * The token limit(s), in tokens (input + output): `'100000/min'`, a `Limit`, a named
   * limiter (`'throttle:team-tpm'`, whose resolver gets a {@link TokenLimitView}), a
   * function of that view, or an array of them (all or nothing). One of `limit`, `input`,
   * `output` is required.
   */
  limit?: LimitInput;
  /** Input-token limit(s), counted apart from output tokens (as Anthropic's ITPM). */
  input?: LimitInput;
  /** Output-token limit(s) (as Anthropic's OTPM). */
  output?: LimitInput;
  /** A request limit charged with the token limits, all or nothing: 1 per call. */
  requests?: LimitInput;
  /**
   * A money limit in integer micro-units of a currency (`'50000000/month'`: 50 a month),
   * charged at `price` with the token limits. Requires `price`.
   */
  budget?: LimitInput;
  /**
   * Prices per million tokens per model, in integer micro-units: a table you pass (see
   * {@link PriceTable}) or a lookup ({@link PriceLookup}), e.g. `genaiPrices(calcPrice)` over
   * `@pydantic/genai-prices`. sluice keeps no price table of its own.
   */
  price?: PriceTable | PriceLookup;
  /** How the upfront charge is estimated (see {@link EstimateOptions}). */
  estimate?: EstimateOptions;
  /**
   * OpenTelemetry metrics, as every sluice limiter's `metrics`: `true` (the global meter
   * provider of `@opentelemetry/api`, an optional peer), `{ meterProvider }`, or `false`.
   * Records `sluice.ai.charges` (by result and model) and `sluice.ai.tokens` (input and
   * output tokens, upfront and settled, by model) on the meter `@sluice/ai`; never the key.
   * @default false
   */
  metrics?: MetricsOption;
}

/** Options of one {@link TokenLimiter.charge}. */
export interface ChargeOptions {
  /** Whose budget: an API key, a team, a user id (keys `<prefix>:<limit name>:<key>`). Required. */
  key: string;
  /** Aborted before the store answers: the charge is given back, the call rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** What a named limiter (or limit function) of a `tokenLimiter` sees: the call's key, body and model. */
export interface TokenLimitView extends RequestView {
  /** The `key` the call was charged under. */
  key: string;
  /** The request body (`{}` when it was not an object). */
  body: Record<string, unknown>;
  /** The body's `model`, when it is a string. */
  model: string | undefined;
}

/** A token limiter: {@link tokenLimiter}'s result. */
export interface TokenLimiter {
  /**
   * Charges one call up front under every limit, all or nothing, in one atomic store call.
   *
   * @param body - an OpenAI Chat Completions, OpenAI Responses or Anthropic Messages request body.
   * @throws `TypeError` (rejects) for a missing `key`; `AbortError` when `signal` aborts
   *   first; whatever a named limiter throws; a `SluiceConfigError` when a named limiter
   *   gives a limit whose algorithm carries no debt, or `budget` meets an unpriced model.
   */
  charge(body: unknown, options: ChargeOptions): Promise<TokenCharge>;
}

const KINDS: readonly LimitKind[] = ['tokens', 'requests', 'input', 'output', 'budget'];
const OPTION_OF: Record<LimitKind, string> = {
  tokens: 'limit',
  requests: 'requests',
  input: 'input',
  output: 'output',
  budget: 'budget',
};
// The store options every protocol front door takes, less ipv6Subnet: a token limit is keyed
// by the caller's `key`, never by an address.
const OPTIONS = [
  ...Object.values(OPTION_OF),
  'price',
  'estimate',
  'metrics',
  ...PROTOCOL_STORE_OPTIONS.filter((name) => name !== 'ipv6Subnet'),
];
const DEBT_ALGORITHMS =
  'an algorithm that can carry a debt (GCRA, the buckets, fixed window, calendar quotas)';

/** One limit ready to charge: its kind, capacity and period. */
interface Ready {
  limit: Limit;
  kind: LimitKind;
  capacity: number;
  periodMs: number;
}

/**
 * A token budget for LLM calls (docs/guide/ai.md): an upfront charge of each call's
 * estimate (input tokens + the largest declared output cap, capped at what the tightest
 * limit can ever hold, so a small budget is never denied by its own estimate), settled to
 * the reported usage afterwards (the rest given back, or the excess charged as a debt the
 * next call waits for). All limits (tokens, requests, input, output, money) are charged
 * all or nothing, in one atomic store call, so concurrent calls never share one remaining
 * budget, across processes on any shared store.
 *
 * @throws {@link SluiceConfigError} at construction for unknown options (all named in one
 *   message), none of `limit`/`input`/`output`, a bad limit, `budget` without `price`, a bad
 *   `price`, or a limit whose algorithm cannot carry a debt (sliding windows, concurrency).
 * @example
 * ```ts
 * const tokens = tokenLimiter({ limit: '100000/min', requests: '500/min', store });
 * const charge = await tokens.charge(body, { key: team });
 * if (!charge.allowed) return tooMany(charge.retryAfterMs);
 * const completion = await openai.chat.completions.create(body);
 * await charge.settle(completion.usage);
 * ```
 */
export function tokenLimiter(options: TokenLimiterOptions): TokenLimiter {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, 'an object { limit, requests?, store?, … }');
  }
  checkOptionNames(options, OPTIONS, 'tokenLimiter()');
  if (options.limit === undefined && options.input === undefined && options.output === undefined) {
    throw new SluiceConfigError(
      'limit',
      undefined,
      "a token limit such as '100000/min' (or input / output limits)",
    );
  }
  if (options.budget !== undefined && options.price === undefined) {
    throw new SluiceConfigError('price', undefined, 'a price table: budget is charged at it');
  }
  const price = options.price === undefined ? undefined : checkPrice(options.price);
  const e = estimator(options.estimate);
  const metrics = aiMetrics(options.metrics, options.logger ?? console);
  const factory: LimitAlgorithmFactory | undefined = options.algorithm;
  const registry = options.throttles ?? defaultThrottles;
  const inputs = KINDS.map((kind) => {
    const input = kind === 'tokens' ? options.limit : options[kind];
    return input === undefined ? undefined : resolveLimitInput(input, registry);
  });
  const cache = new Map<Limit | string, Ready>();
  const ready = (limit: Limit, kind: LimitKind): Ready => {
    const id =
      limit.name === undefined && kind === 'tokens'
        ? limit
        : `${kind}|${limit.toString()}|${limit.name}`;
    let r = cache.get(id);
    if (r !== undefined) return r;
    const algorithm = limitAlgorithm(limit, factory)!;
    if (algorithm.debt !== true)
      throw new SluiceConfigError(OPTION_OF[kind], limit, DEBT_ALGORITHMS);
    const named = limit.name !== undefined ? limit : limit.named(`${kind}.${defaultName(limit)}`);
    r = { limit: named, kind, capacity: algorithm.limit, periodMs: limit.periodMs };
    if (cache.size >= 1000) cache.clear();
    cache.set(id, r);
    return r;
  };
  // Fixed limits are checked now: a bad algorithm fails at construction.
  for (let k = 0; k < KINDS.length; k++) {
    const resolved = inputs[k];
    if (resolved?.isStatic)
      for (const l of resolved.limitsFor(undefined as never) as readonly Limit[])
        if (!l.unlimited) ready(l, KINDS[k]!);
  }
  const limiter = new ProtocolLimiter({
    ...protocolStoreOptions(options),
    limit: options.limit ?? options.input ?? options.output!,
    channel: 'ai',
  });

  const limitsOf = async (view: TokenLimitView): Promise<Ready[]> => {
    const out: Ready[] = [];
    for (let k = 0; k < KINDS.length; k++) {
      const resolved = inputs[k];
      if (resolved === undefined) continue;
      for (const l of await resolved.limitsFor(view))
        if (!l.unlimited) out.push(ready(l, KINDS[k]!));
    }
    return out;
  };

  return {
    async charge(body: unknown, chargeOptions: ChargeOptions): Promise<TokenCharge> {
      const key = chargeOptions?.key;
      if (typeof key !== 'string' || key === '')
        throw new TypeError('sluice: charge() needs a key: a non-empty string');
      const signal = chargeOptions.signal;
      if (signal?.aborted) throw abortError();
      const b = asBody(body);
      const model = modelOf(b);
      const view: TokenLimitView = {
        method: 'POST',
        route: 'ai',
        ip: '',
        headers: {},
        raw: { key, body: b, model },
        key,
        body: b,
        model,
      };
      const limits = await limitsOf(view);
      if (signal?.aborted) throw abortError();
      const input = inputTokensOf(b, e);
      const output = outputTokensOf(b, e);
      const modelPrice = price === undefined ? undefined : price(model);
      if (modelPrice === undefined && limits.some((r) => r.kind === 'budget')) {
        throw new SluiceConfigError(
          'price',
          undefined,
          `a price for the model of the call (or a '*' entry)`,
        );
      }
      const { amount, upfront, upfrontInput } = upfrontOf(limits, input, output, modelPrice);
      const cost = limits.map((r) => amount[r.kind]);
      const checked = limiter.check(view, { key, limits: limits.map((r) => r.limit), cost });
      const verdict = await (signal === undefined ? checked : raced(checked, signal, limiter));
      const charge = tokenCharge({
        limiter,
        verdict,
        kinds: limits.map((r) => r.kind),
        periods: limits.map((r) => r.periodMs),
        upfront,
        price: modelPrice,
        model,
        metrics,
      });
      if (metrics !== undefined) {
        const charged = charge.upfront === 0 ? 0 : upfrontInput;
        metrics.charged(model, charge.allowed, charged, charge.upfront - charged);
      }
      return charge;
    },
  };
}

/**
 * Each kind's upfront charge: the estimate capped at what the tightest limit of the kind can
 * ever hold (a first call on a 60-token key is admitted, into debt), and the tokens charged.
 */
function upfrontOf(
  limits: readonly Ready[],
  input: number,
  output: number,
  modelPrice: ModelPrice | undefined,
): { amount: Record<LimitKind, number>; upfront: number; upfrontInput: number } {
  const capOf = (kind: LimitKind) =>
    Math.min(...limits.filter((r) => r.kind === kind).map((r) => r.capacity));
  const amount: Record<LimitKind, number> = {
    tokens: Math.min(input + output, capOf('tokens')),
    requests: 1,
    input: Math.min(input, capOf('input')),
    output: Math.min(output, capOf('output')),
    budget:
      modelPrice === undefined
        ? 0
        : Math.min(costOf(modelPrice, { input, cachedInput: 0, output }), capOf('budget')),
  };
  const hasTokens = limits.some((r) => r.kind === 'tokens');
  // Of the upfront tokens, the input's (a token limit's cap taken from the output first).
  const upfrontInput = hasTokens ? Math.min(input, amount.tokens) : amount.input;
  const upfront = hasTokens ? amount.tokens : amount.input + amount.output;
  return { amount, upfront, upfrontInput };
}

/** A limit's name as the core derives it for a limit without one. */
function defaultName(limit: Limit): string {
  const calendar = limit.calendar === undefined ? '' : 'calendar-';
  return `${limit.maxAttempts}-per-${calendar}${limit.periodMs}ms`;
}

function abortError(): Error {
  return new DOMException('The charge was aborted', 'AbortError');
}

type Verdict = Awaited<ReturnType<ProtocolLimiter['check']>>;

/** `checked`, or an `AbortError` as soon as `signal` aborts (the charge, once made, given back). */
function raced(
  checked: Verdict | Promise<Verdict>,
  signal: AbortSignal,
  limiter: ProtocolLimiter,
): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(checked).then(
      (verdict) => {
        signal.removeEventListener('abort', onAbort);
        if (!signal.aborted) return resolve(verdict);
        if (verdict.allowed) {
          void Promise.resolve(
            limiter.settle(
              verdict,
              verdict.charges.map(() => 0),
            ),
          ).catch(() => undefined);
        }
        reject(abortError());
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
