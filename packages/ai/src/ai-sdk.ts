import { RateLimitedError, SluiceConfigError } from '@sluice/core';
import { chargeDetails, type TokenCharge } from './token-charge.js';
import { type TokenLimiterOptions, tokenLimiter } from './token-limiter.js';

/**
 * What the middleware reads of the AI SDK's call options (ai 6's `LanguageModelV3CallOptions`,
 * ai 7's `LanguageModelV4CallOptions`: these fields are the same in both).
 */
export interface LanguageModelCallParams {
  /** The prompt: system, user, assistant and tool messages. */
  prompt: unknown;
  /** The declared output cap, when set. */
  maxOutputTokens?: number;
  /** The tools offered to the model. */
  tools?: unknown;
}

/** Options of {@link sluiceLanguageModelMiddleware}: `tokenLimiter`'s, and whose budget a call is. */
export interface LanguageModelMiddlewareOptions extends TokenLimiterOptions {
  /** Whose budget a call is (a user, a team), from its call options. Required. */
  key: (params: LanguageModelCallParams) => string | Promise<string>;
}

/** The parts of an AI SDK language model the middleware reads. */
interface ModelLike {
  readonly modelId: string;
}

/**
 * The middleware for the AI SDK's `wrapLanguageModel`, ai 6 and ai 7 (ai 7 needs Node 22+), its
 * types written structurally so that `@sluice/ai` needs no `ai` at run time. It declares
 * `specificationVersion: 'v3'`, which ai 6 requires and ai 7 accepts (ai 7's
 * `LanguageModelMiddleware` leaves the version open; its `wrapGenerate`/`wrapStream` pass the
 * same `doGenerate`/`doStream`, `params` and `model`, and the same `usage` and `finish` part).
 */
export interface SluiceLanguageModelMiddleware {
  /** The AI SDK middleware version. */
  readonly specificationVersion: 'v3';
  /** Charges `generateText`'s call up front, settled from the result's usage. */
  wrapGenerate<R>(options: {
    doGenerate: () => PromiseLike<R>;
    params: LanguageModelCallParams;
    model: ModelLike;
  }): Promise<R>;
  /** Charges `streamText`'s call up front, settled from the stream's `finish` part. */
  wrapStream<R extends { stream: ReadableStream<unknown> }>(options: {
    doStream: () => PromiseLike<R>;
    params: LanguageModelCallParams;
    model: ModelLike;
  }): Promise<R>;
}

/**
 * Token budgets for the AI SDK, ai 6 (Node 20+) and ai 7 (Node 22+), one middleware for both
 * (docs/guide/ai.md): each `generateText` / `streamText` call of
 * the wrapped model is charged up front (its prompt, tools and `maxOutputTokens`, as
 * `tokenLimiter` estimates a body), and settled to the usage the model reports (the result's
 * `usage`, or the stream's `finish` part). A call the model fails before answering gives
 * the charge back; a denial throws `RateLimitedError` (`retryAfterMs`, -1 when no wait would
 * help) before the model is called.
 *
 * @throws {@link SluiceConfigError} at creation for a missing `key` or what `tokenLimiter` refuses.
 * @example
 * ```ts
 * const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: sluiceLanguageModelMiddleware({ limit: '100000/min', key: () => userId }) });
 * ```
 */
export function sluiceLanguageModelMiddleware(
  options: LanguageModelMiddlewareOptions,
): SluiceLanguageModelMiddleware {
  const { key, ...rest } = options ?? ({} as LanguageModelMiddlewareOptions);
  if (typeof key !== 'function') {
    throw new SluiceConfigError('key', key, 'a function (params) => string');
  }
  const limiter = tokenLimiter(rest);
  const charged = async (
    params: LanguageModelCallParams,
    model: ModelLike,
  ): Promise<TokenCharge> => {
    const body = {
      model: model?.modelId,
      messages: params.prompt,
      tools: params.tools,
      max_tokens: params.maxOutputTokens,
    };
    const charge = await limiter.charge(body, { key: await key(params) });
    if (!charge.allowed) {
      const verdict = chargeDetails(charge)!.verdict;
      throw new RateLimitedError(verdict);
    }
    return charge;
  };
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate, params, model }) {
      const charge = await charged(params, model);
      let result: Awaited<ReturnType<typeof doGenerate>>;
      try {
        result = await doGenerate();
      } catch (error) {
        await charge.cancel();
        throw error;
      }
      await charge.settle((result as { usage?: unknown } | undefined)?.usage);
      return result;
    },
    async wrapStream<R extends { stream: ReadableStream<unknown> }>({
      doStream,
      params,
      model,
    }: {
      doStream: () => PromiseLike<R>;
      params: LanguageModelCallParams;
      model: ModelLike;
    }): Promise<R> {
      const charge = await charged(params, model);
      let result: R;
      try {
        result = (await doStream()) as R;
      } catch (error) {
        await charge.cancel();
        throw error;
      }
      let usage: unknown;
      const metered = result.stream.pipeThrough(
        new TransformStream<unknown, unknown>({
          transform(part, controller) {
            if ((part as { type?: unknown } | null)?.type === 'finish')
              usage = (part as { usage?: unknown }).usage;
            controller.enqueue(part);
          },
          async flush() {
            await charge.settle(usage); // no finish part: the upfront charge stays
          },
        }),
      );
      return { ...result, stream: metered };
    },
  };
}
