import type { TokenCharge } from './token-charge.js';
import { UsageScanner } from './usage-stream.js';

/** Options of {@link meterStream}. */
export interface MeterStreamOptions {
  /** Where the one "no usage in the answer" warning goes. @default console */
  logger?: {
    /** Called with a one-line message (no key, no body). */
    warn(message: string): void;
  };
}

let warned = false;

/**
 * Settles `charge` from the usage the provider reports in `response`, as the body passes
 * (docs/guide/ai.md, "Streams"). The returned `Response` has the same status and headers,
 * and its body is the same bytes, chunk by chunk, unchanged. The charge is settled when the
 * body ends (before the returned body closes): from OpenAI's last Chat Completions chunk
 * (set `stream_options: { include_usage: true }`), Responses' `response.completed`,
 * Anthropic's `message_start` + `message_delta`, or a JSON body's `usage`.
 *
 * - A non-2xx response cancels the charge (the provider failed: no tokens spent).
 * - A body with no usage keeps the upfront charge, with one warning per process.
 * - A body cancelled or failing mid-way keeps the upfront charge.
 *
 * @example
 * ```ts
 * const charge = await tokens.charge(body, { key: team });
 * const upstream = await fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers, body: JSON.stringify(body) });
 * return meterStream(upstream, charge);
 * ```
 */
export function meterStream(
  response: Response,
  charge: TokenCharge,
  options: MeterStreamOptions = {},
): Response {
  const init = {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  };
  if (response.status < 200 || response.status > 299) {
    void charge.cancel();
    return response.body === null ? new Response(null, init) : new Response(response.body, init);
  }
  const logger = options.logger ?? console;
  const noUsage = async () => {
    await charge.settle(undefined);
    if (warned || !charge.allowed) return;
    warned = true;
    logger.warn(
      'sluice: an LLM answer carried no usage; the upfront charge is kept. For streamed Chat ' +
        'Completions set stream_options.include_usage (docs/guide/ai.md).',
    );
  };
  const body = response.body;
  if (body === null) {
    void noUsage();
    return new Response(null, init);
  }
  const scanner = new UsageScanner(response.headers.get('content-type'));
  const reader = body.getReader();
  const metered = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        await charge.settle(undefined); // failed mid-way: the upfront charge stays
        controller.error(error);
        return;
      }
      if (next.done) {
        const usage = scanner.end();
        if (usage === undefined) await noUsage();
        else await charge.settle(usage);
        controller.close();
        return;
      }
      scanner.push(next.value);
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      await charge.settle(undefined); // the caller went away: the upfront charge stays
      await reader.cancel(reason);
    },
  });
  return new Response(metered, init);
}
