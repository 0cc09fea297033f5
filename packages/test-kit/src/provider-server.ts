import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for OpenAI's or Anthropic's API: a fixed window of `tokens` tokens (each
 * call charged its `max_tokens`) and `requests` requests per `windowMs`, on `clock`, with the
 * provider's own headers, 429 bodies and `Retry-After`. Counts what it answered.
 */
export interface ProviderServer {
  url: string;
  served: number;
  refused: number;
  /** Calls served per window (by window index). */
  perWindow: Map<number, number>;
  close(): Promise<void>;
}

export interface ProviderOptions {
  provider: 'openai' | 'anthropic';
  clock: () => number;
  tokens: number;
  requests: number;
  windowMs: number;
}

/** OpenAI's reset form: `6m0s`, `1.5s`, `20ms`. */
export function openAiReset(ms: number): string {
  if (ms >= 60_000) return `${Math.floor(ms / 60_000)}m${((ms % 60_000) / 1000).toFixed(0)}s`;
  if (ms >= 1000) return `${Number((ms / 1000).toFixed(3))}s`;
  return `${Math.ceil(ms)}ms`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export async function startProvider(options: ProviderOptions): Promise<ProviderServer> {
  const { clock, windowMs } = options;
  const start = clock();
  let window = -1;
  let tokensUsed = 0;
  let requestsUsed = 0;
  const state: Omit<ProviderServer, 'url' | 'close'> = {
    served: 0,
    refused: 0,
    perWindow: new Map(),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse(await readBody(req)) as { max_tokens?: number; model?: string };
    const now = clock();
    const index = Math.floor((now - start) / windowMs);
    if (index !== window) {
      window = index;
      tokensUsed = 0;
      requestsUsed = 0;
    }
    const end = start + (index + 1) * windowMs;
    const cost = body.max_tokens ?? 0;
    const denied = tokensUsed + cost > options.tokens || requestsUsed + 1 > options.requests;
    if (!denied) {
      tokensUsed += cost;
      requestsUsed++;
    }
    const headers = providerHeaders(options, {
      now,
      end,
      tokensLeft: options.tokens - tokensUsed,
      requestsLeft: options.requests - requestsUsed,
    });
    res.setHeader('Date', new Date(now).toUTCString());
    res.setHeader('Content-Type', 'application/json');
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (denied) {
      state.refused++;
      res.setHeader('Retry-After', String(Math.ceil((end - now) / 1000)));
      if (options.provider === 'openai') res.setHeader('retry-after-ms', String(end - now));
      res.statusCode = 429;
      res.end(
        JSON.stringify(
          refusal(options.provider, {
            model: body.model ?? 'm',
            limit: options.tokens,
            used: tokensUsed,
            requested: cost,
          }),
        ),
      );
      return;
    }
    state.served++;
    state.perWindow.set(index, (state.perWindow.get(index) ?? 0) + 1);
    res.statusCode = 200;
    res.end(JSON.stringify(answer(options.provider, body.model ?? 'm')));
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.statusCode = 400;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** The provider's rate-limit headers for the current window. */
function providerHeaders(
  options: ProviderOptions,
  s: { now: number; end: number; tokensLeft: number; requestsLeft: number },
): Record<string, string> {
  if (options.provider === 'openai') {
    const reset = openAiReset(s.end - s.now);
    return {
      'x-ratelimit-limit-requests': String(options.requests),
      'x-ratelimit-remaining-requests': String(s.requestsLeft),
      'x-ratelimit-reset-requests': reset,
      'x-ratelimit-limit-tokens': String(options.tokens),
      'x-ratelimit-remaining-tokens': String(s.tokensLeft),
      'x-ratelimit-reset-tokens': reset,
    };
  }
  const reset = new Date(s.end).toISOString();
  const big = String(options.tokens * 10);
  return {
    'anthropic-ratelimit-requests-limit': String(options.requests),
    'anthropic-ratelimit-requests-remaining': String(s.requestsLeft),
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-tokens-limit': String(options.tokens),
    'anthropic-ratelimit-tokens-remaining': String(s.tokensLeft),
    'anthropic-ratelimit-tokens-reset': reset,
    // Input and output limits ten times looser: the total binds.
    'anthropic-ratelimit-input-tokens-limit': big,
    'anthropic-ratelimit-input-tokens-remaining': big,
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': big,
    'anthropic-ratelimit-output-tokens-remaining': big,
    'anthropic-ratelimit-output-tokens-reset': reset,
  };
}

/** The provider's 429 body, OpenAI's message with the window's figures as it writes them. */
function refusal(
  provider: 'openai' | 'anthropic',
  s: { model: string; limit: number; used: number; requested: number },
): unknown {
  if (provider === 'openai') {
    return {
      error: {
        message: `Rate limit reached for ${s.model} on tokens per min (TPM): Limit ${s.limit}, Used ${s.used}, Requested ${s.requested}.`,
        type: 'tokens',
        param: null,
        code: 'rate_limit_exceeded',
      },
    };
  }
  return {
    type: 'error',
    error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit.' },
  };
}

/** A minimal successful answer of each API. */
function answer(provider: 'openai' | 'anthropic', model: string): unknown {
  if (provider === 'openai') {
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'ok', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    };
  }
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  };
}
