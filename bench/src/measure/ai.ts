// The @sluice/ai section of `pnpm bench:core` (docs/guide/ai.md): what a token budget costs in
// process. `estimateTokens` of a 4 KB Chat Completions body with the built-in heuristic (target
// <= 5 µs p50) and with a tokenizer (gpt-tokenizer's `countTokens`), then a `tokenLimiter`
// charge of that body on the memory store (alone, and with its settle) beside a plain
// `RateLimiter.consume` of the same cost on the same default algorithm (GCRA, burst = limit).
// Every limit is one no call reaches; keys round robin over 1,000. CPU time per call
// (process.cpuUsage over batches of awaited calls), so a loaded machine moves it less than
// wall time would.
import { estimateTokens, tokenLimiter } from '@sluice/ai';
import { gcra, MemoryStore, RateLimiter } from '@sluice/core';
import { countTokens } from 'gpt-tokenizer';

export interface AiFigures {
  /** Bytes of the body's JSON text. */
  bodyBytes: number;
  /** The estimate of that body (heuristic), the cost of the charge and consume rows. */
  tokens: number;
  /** p50 / p90 ns of `await estimateTokens(body)`, no tokenizer. */
  estimateP50Ns: number;
  estimateP90Ns: number;
  /** p50 ns of `await estimateTokens(body, { tokenizer: countTokens })`. */
  estimateTokenizerP50Ns: number;
  /** p50 ns of `await tokens.charge(body, { key })` (an admitted charge, not settled). */
  chargeP50Ns: number;
  /** p50 ns of a charge and its `settle(usage)`. */
  chargeSettleP50Ns: number;
  /** p50 ns of `await limiter.consume(key, { cost: tokens })` on the same algorithm and store. */
  consumeP50Ns: number;
}

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** p50 and p90 of CPU ns per awaited call over `batches` batches of `size` calls of `fn(i)`. */
async function perAwaitedCall(
  fn: (i: number) => Promise<unknown>,
  batches: number,
  size: number,
): Promise<[number, number]> {
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const start = cpuNs();
    for (let i = 0; i < size; i++) await fn(b * size + i);
    samples.push((cpuNs() - start) / size);
  }
  samples.sort((x, y) => x - y);
  return [samples[Math.floor(samples.length / 2)]!, samples[Math.floor(samples.length * 0.9)]!];
}

/** A Chat Completions body of about `bytes` bytes of JSON: a system prompt and a user turn. */
export function chatBody(bytes = 4096): Record<string, unknown> {
  const words = 'the quick brown fox jumps over a lazy dog while rate limits count tokens'.split(
    ' ',
  );
  const body = {
    model: 'gpt-4o',
    max_tokens: 512,
    messages: [
      { role: 'system', content: 'You are a careful assistant. Answer briefly.' },
      { role: 'user', content: '' },
    ],
  };
  let text = '';
  for (let i = 0; JSON.stringify(body).length + text.length < bytes; i++)
    text += `${words[i % words.length]} `;
  body.messages[1]!.content = text.slice(0, bytes - JSON.stringify(body).length);
  return body;
}

export async function measureAi(): Promise<AiFigures> {
  const body = chatBody();
  const bodyBytes = JSON.stringify(body).length;
  const tokens = await estimateTokens(body);
  const keys = Array.from({ length: 1000 }, (_, i) => `team:${i}`);
  const limit = 1e12;
  const budget = tokenLimiter({ limit: `${limit}/min`, store: new MemoryStore() });
  const limiter = new RateLimiter({
    algorithm: gcra({ rate: limit, period: '1m', burst: limit }),
    store: new MemoryStore(),
  });
  const usage = { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 };
  const cases = {
    estimate: (_: number) => estimateTokens(body),
    tokenizer: (_: number) => estimateTokens(body, { tokenizer: countTokens }),
    charge: (i: number) => budget.charge(body, { key: keys[i % 1000]! }),
    chargeSettle: async (i: number) => {
      const charge = await budget.charge(body, { key: keys[i % 1000]! });
      await charge.settle(usage);
    },
    consume: (i: number) => limiter.consume(keys[i % 1000]!, { cost: tokens }),
  };
  const figures: Record<keyof typeof cases, [number, number]> = {} as never;
  for (const [name, fn] of Object.entries(cases) as [keyof typeof cases, typeof cases.charge][]) {
    const size = name === 'tokenizer' ? 100 : 2_000;
    await perAwaitedCall(fn, 20, size); // warm-up
    figures[name] = await perAwaitedCall(fn, 100, size);
  }
  const check = await budget.charge(body, { key: 'check' });
  if (!check.allowed || check.upfront !== tokens)
    throw new Error('bench: the charge row was denied');
  return {
    bodyBytes,
    tokens,
    estimateP50Ns: figures.estimate[0],
    estimateP90Ns: figures.estimate[1],
    estimateTokenizerP50Ns: figures.tokenizer[0],
    chargeP50Ns: figures.charge[0],
    chargeSettleP50Ns: figures.chargeSettle[0],
    consumeP50Ns: figures.consume[0],
  };
}
