import { integerField, onCallerClock, read } from './fields.js';
import type { HeadersLike, ObservedPolicy } from './types.js';

/** What a provider's headers say of one limit. */
interface Counts {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: number | undefined;
}

/** One provider policy named by its unit (`requests`, `tokens`, `input-tokens`…). */
function policy(provider: string, unit: string, counts: Counts): ObservedPolicy {
  return {
    id: `${provider}:${unit}`,
    name: unit,
    partitionKey: undefined,
    quota: counts.limit,
    windowSeconds: undefined,
    concurrent: false,
    tokens: unit !== 'requests',
    remaining: counts.remaining,
    resetAt: counts.resetAt,
    cost: undefined,
  };
}

/** A Go duration's units: their order (largest first) and their length in ms. */
const GO_UNITS = new Map<string, readonly [rank: number, ms: number]>([
  ['h', [0, 3_600_000]],
  ['m', [1, 60_000]],
  ['s', [2, 1000]],
  ['ms', [3, 1]],
  ['µs', [4, 1e-3]], // U+00B5, as Go prints it
  ['μs', [4, 1e-3]], // U+03BC, which Go reads too
  ['us', [4, 1e-3]],
  ['ns', [5, 1e-6]],
]);
const GO_PART = /(\d{1,9}(?:\.\d{1,9})?)(h|ms|m|s|µs|μs|us|ns)/y;

/**
 * OpenAI's reset: a Go duration from now, as Go prints one (`6m0s`, `1.5s`, `20ms`,
 * `1h2m3.5s`, `850µs`, `0s`): decimal numbers each with a unit of `h`, `m`, `s`, `ms`, `µs`
 * (or `us`), `ns`, the units largest first, each once. Returns ms, rounded up, or
 * `undefined` when the text is not one.
 */
export function openAiDuration(text: string | undefined): number | undefined {
  const s = text?.trim();
  if (s === undefined || s === '') return undefined;
  let ms = 0;
  let last = -1;
  GO_PART.lastIndex = 0;
  while (GO_PART.lastIndex < s.length) {
    const m = GO_PART.exec(s);
    if (m === null) return undefined;
    const [rank, length] = GO_UNITS.get(m[2]!)!;
    if (rank <= last) return undefined;
    last = rank;
    ms += Number(m[1]) * length;
  }
  // Rounded to the nanosecond first: 59.999 × 1000 is 59999.000000000007 in binary.
  return Math.ceil(Math.round(ms * 1e6) / 1e6);
}

/**
 * OpenAI: `x-ratelimit-{limit,remaining,reset}-requests` and `-tokens` (the reset as
 * {@link openAiDuration}), two policies named `requests` and `tokens`.
 */
export function openAi(headers: HeadersLike, now: number): ObservedPolicy[] {
  const found: ObservedPolicy[] = [];
  for (const unit of ['requests', 'tokens'] as const) {
    const limit = integerField(read(headers, `x-ratelimit-limit-${unit}`));
    const remaining = integerField(read(headers, `x-ratelimit-remaining-${unit}`));
    if (limit === undefined && remaining === undefined) continue;
    const reset = openAiDuration(read(headers, `x-ratelimit-reset-${unit}`));
    const resetAt = reset === undefined ? undefined : now + reset;
    found.push(policy('openai', unit, { limit, remaining, resetAt }));
  }
  return found;
}

/** Anthropic's limits, as its header names spell them. */
const ANTHROPIC = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;

/**
 * Anthropic: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`,
 * the reset an RFC 3339 time (read against the response's `Date`), one policy each, named
 * as the header (`input-tokens`…).
 */
export function anthropic(headers: HeadersLike, now: number): ObservedPolicy[] {
  const found: ObservedPolicy[] = [];
  for (const unit of ANTHROPIC) {
    const limit = integerField(read(headers, `anthropic-ratelimit-${unit}-limit`));
    const remaining = integerField(read(headers, `anthropic-ratelimit-${unit}-remaining`));
    if (limit === undefined && remaining === undefined) continue;
    const text = read(headers, `anthropic-ratelimit-${unit}-reset`)?.trim();
    // RFC 3339 only (a date and a time with a zone), not any string Date.parse takes.
    const valid =
      text !== undefined &&
      /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/.test(text);
    const at = valid ? Date.parse(text) : Number.NaN;
    const resetAt = Number.isNaN(at) ? undefined : onCallerClock(headers, at, now);
    found.push(policy('anthropic', unit, { limit, remaining, resetAt }));
  }
  return found;
}
