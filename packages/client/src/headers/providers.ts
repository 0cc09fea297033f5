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

/**
 * OpenAI's reset: a Go-style duration from now, `6m0s`, `1.5s`, `20ms`, `1h2m3.5s`, `0s`.
 * Returns ms, or `undefined` when the text is not one.
 */
export function openAiDuration(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m =
    /^\s*(?:(\d{1,6}(?:\.\d{1,9})?)h)?(?:(\d{1,6}(?:\.\d{1,9})?)m(?!s))?(?:(\d{1,9}(?:\.\d{1,9})?)s)?(?:(\d{1,9}(?:\.\d{1,9})?)ms)?\s*$/.exec(
      text,
    );
  if (m === null || m.slice(1).every((part) => part === undefined)) return undefined;
  const [h, min, s, ms] = m.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  return Math.ceil(h! * 3_600_000 + min! * 60_000 + s! * 1000 + ms!);
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
