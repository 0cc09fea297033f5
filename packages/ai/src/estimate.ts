import { SluiceConfigError } from '@sluice/core';
import { checkOptionNames } from '@sluice/core/store';
import { asBody, outputCapOf, type RequestBody } from './body.js';

/**
 * How {@link estimateTokens} (and a `tokenLimiter`'s upfront charge) estimates a request.
 * Every field is optional.
 */
export interface EstimateOptions {
  /**
   * Counts the tokens of a text: a well-kept tokenizer, e.g. `gpt-tokenizer`'s
   * `countTokens` (an optional peer: install it yourself). Default: about 4 characters a
   * token, rounded up (`Math.ceil(text.length / 4)`).
   */
  tokenizer?: (text: string) => number;
  /** Output tokens assumed when the body declares no output cap. @default 1024 */
  output?: number;
  /** Tokens counted per image (or file) part, whatever its size. @default 1600 */
  image?: number;
  /** Tokens added per message (role and framing) and once for the reply's priming. @default 4 */
  perMessage?: number;
}

/** The estimate options with their defaults, checked. */
export interface Estimator {
  readonly tokenizer: ((text: string) => number) | undefined;
  readonly output: number;
  readonly image: number;
  readonly perMessage: number;
}

const DEFAULTS: Estimator = Object.freeze({
  tokenizer: undefined,
  output: 1024,
  image: 1600,
  perMessage: 4,
});

/** Checks `options` (the `estimate` option): a `SluiceConfigError` naming the bad field. */
export function estimator(options: EstimateOptions | undefined): Estimator {
  if (options === undefined) return DEFAULTS;
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError(
      'estimate',
      options,
      'an object { tokenizer?, output?, image?, perMessage? }',
    );
  }
  checkOptionNames(options, ['tokenizer', 'output', 'image', 'perMessage'], 'estimate');
  for (const name of ['output', 'image', 'perMessage'] as const) {
    const v = options[name];
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
      throw new SluiceConfigError(`estimate.${name}`, v, 'an integer >= 0');
    }
  }
  if (options.tokenizer !== undefined && typeof options.tokenizer !== 'function') {
    throw new SluiceConfigError(
      'estimate.tokenizer',
      options.tokenizer,
      'a function (text) => number',
    );
  }
  return Object.freeze({
    tokenizer: options.tokenizer,
    output: options.output ?? DEFAULTS.output,
    image: options.image ?? DEFAULTS.image,
    perMessage: options.perMessage ?? DEFAULTS.perMessage,
  });
}

const IMAGE_TYPES = new Set([
  'image',
  'image_url',
  'input_image',
  'document',
  'file',
  'input_file',
  'input_audio',
]);
/** Keys whose string values are not text the model reads as tokens. */
const SKIPPED = new Set(['type', 'role', 'id', 'call_id', 'tool_use_id', 'cache_control']);

/** Counts what a model reads: texts through the tokenizer, images and files at a fixed amount. */
class Counter {
  chars = 0;
  tokens = 0;
  constructor(private readonly e: Estimator) {}

  text(s: string): void {
    if (this.e.tokenizer !== undefined) this.tokens += this.e.tokenizer(s);
    else this.chars += s.length;
  }

  /** Any JSON value: strings counted, image and file parts at `image`, structure walked. */
  value(v: unknown, depth = 0): void {
    if (typeof v === 'string') this.text(v);
    else if (typeof v === 'number' || typeof v === 'boolean') this.text(String(v));
    if (v === null || typeof v !== 'object' || depth > 32) return;
    if (Array.isArray(v)) {
      for (const item of v) this.value(item, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.type === 'string' && IMAGE_TYPES.has(o.type)) {
      this.tokens += this.e.image;
      return;
    }
    for (const key in o) {
      if (SKIPPED.has(key)) continue;
      this.value(o[key], depth + 1);
    }
  }

  /** JSON text of a structure the provider sends as such (tool definitions, schemas). */
  json(v: unknown): void {
    if (v !== undefined) this.text(JSON.stringify(v));
  }

  total(): number {
    return this.tokens + Math.ceil(this.chars / 4);
  }
}

/**
 * The input tokens of a request body, estimated (docs/guide/ai.md, "The estimate"): the
 * messages (Chat Completions, Anthropic) or the input items and `instructions` (Responses),
 * the system prompt (`system`, system messages), the tools and response format as the JSON
 * the provider receives, each image or file part a fixed `image` amount, plus `perMessage`
 * per message and once for the reply.
 */
export function inputTokensOf(body: RequestBody, e: Estimator): number {
  const c = new Counter(e);
  let messages = 0;
  if (body.system !== undefined) {
    c.value(body.system);
    messages++;
  }
  if (typeof body.instructions === 'string') {
    c.text(body.instructions);
    messages++;
  }
  for (const list of [body.messages, body.input]) {
    if (typeof list === 'string') {
      c.text(list);
      messages++;
    } else if (Array.isArray(list)) {
      for (const m of list) {
        c.value(m);
        messages++;
      }
    }
  }
  c.json(body.tools);
  c.json(body.functions);
  c.json(
    body.tool_choice === undefined || typeof body.tool_choice === 'string'
      ? undefined
      : body.tool_choice,
  );
  c.json(body.response_format);
  c.json((body.text as { format?: unknown } | undefined)?.format);
  return c.total() + e.perMessage * (messages + 1);
}

/** The output tokens a request may produce: its largest declared cap, else `e.output`. */
export function outputTokensOf(body: RequestBody, e: Estimator): number {
  return outputCapOf(body) ?? e.output;
}

/**
 * A request's tokens, estimated as a limiter charges them up front: its input tokens (the
 * messages, system prompt, tools and images, see {@link EstimateOptions}) plus the largest
 * of its declared output caps (`max_tokens`, `max_completion_tokens`, `max_output_tokens`),
 * else `options.output` (1024). For the calling side (`pacedFetch`'s `estimate`) and for
 * anyone who wants the number a `tokenLimiter` would charge before its capacity cap.
 *
 * @param request - a fetch `Request` (its JSON body is read from a clone) or a parsed body
 *   of OpenAI Chat Completions, OpenAI Responses or Anthropic Messages. A body that is not
 *   JSON counts as an empty request (only the output allowance).
 * @returns a promise of the token count, an integer >= 0.
 * @example
 * ```ts
 * const tokens = await estimateTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100 });
 * ```
 */
export async function estimateTokens(
  request: Request | Record<string, unknown>,
  options?: EstimateOptions,
): Promise<number> {
  const e = estimator(options);
  let body: unknown = request;
  if (typeof Request !== 'undefined' && request instanceof Request) {
    body = await request
      .clone()
      .json()
      .catch(() => undefined);
  }
  const b = asBody(body);
  return inputTokensOf(b, e) + outputTokensOf(b, e);
}
