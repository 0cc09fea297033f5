import type { Decision } from '@sluice/core';
import { chargeDetails, type LimitKind, type TokenCharge } from './token-charge.js';

/**
 * A duration in OpenAI's `x-ratelimit-reset-*` form: `20ms` under a second, else hours,
 * minutes and seconds with up to 3 decimals (`1.5s`, `6m0s`, `1h2m3s`).
 */
export function openaiDuration(ms: number): string {
  const t = Math.max(0, Math.ceil(ms));
  if (t < 1000) return `${t}ms`;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const s = `${Number(((t % 60_000) / 1000).toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${s}`;
  return m > 0 ? `${m}m${s}` : s;
}

/** The most restrictive decision among those of `kinds`: a denial, else the fewest remaining. */
function tightest(
  charge: TokenCharge,
  kinds: readonly LimitKind[],
): { d: Decision; kind: LimitKind } | undefined {
  const details = chargeDetails(charge);
  if (details === undefined) return undefined;
  let best: { d: Decision; kind: LimitKind } | undefined;
  charge.decisions.forEach((d, i) => {
    const kind = details.kinds[i];
    if (kind === undefined || !kinds.includes(kind)) return;
    if (
      best === undefined ||
      (d.allowed !== best.d.allowed
        ? !d.allowed
        : d.allowed
          ? d.remaining < best.d.remaining
          : d.retryAfterMs > best.d.retryAfterMs)
    ) {
      best = { d, kind };
    }
  });
  return best;
}

const TOKEN_KINDS: readonly LimitKind[] = ['tokens', 'input', 'output', 'budget'];

/**
 * OpenAI's rate-limit headers for a charge: `x-ratelimit-{limit,remaining,reset}-tokens`
 * from the tightest token limit, `-requests` from the request limit when there is one.
 */
export function openaiHeaders(charge: TokenCharge): [string, string][] {
  const out: [string, string][] = [];
  for (const [suffix, kinds] of [
    ['tokens', TOKEN_KINDS],
    ['requests', ['requests'] as const],
  ] as const) {
    const t = tightest(charge, kinds);
    if (t === undefined || !Number.isFinite(t.d.limit)) continue;
    out.push([`x-ratelimit-limit-${suffix}`, String(t.d.limit)]);
    out.push([`x-ratelimit-remaining-${suffix}`, String(Math.max(0, Math.floor(t.d.remaining)))]);
    out.push([`x-ratelimit-reset-${suffix}`, openaiDuration(t.d.resetAfterMs)]);
  }
  return out;
}

/**
 * The 429 answer of a denied charge, as OpenAI answers one: `Retry-After` (whole seconds,
 * rounded up) and `retry-after-ms` when a wait would help, and the error body
 * `{"error":{"message","type":"requests"|"tokens","param":null,"code":"rate_limit_exceeded"}}`.
 */
export function openaiDenial(charge: TokenCharge): Response {
  const denied = tightest(charge, ['tokens', 'input', 'output', 'budget', 'requests'])?.kind;
  const type = denied === 'requests' ? 'requests' : 'tokens';
  const wait = charge.retryAfterMs;
  const what = denied === 'budget' ? 'spend' : type;
  const message =
    wait < 0
      ? `Rate limit reached for ${what}: this request cannot be admitted.`
      : `Rate limit reached for ${what}. Please try again in ${openaiDuration(wait)}.`;
  const headers = new Headers({ 'content-type': 'application/json' });
  if (wait >= 0) {
    headers.set('retry-after', String(Math.max(1, Math.ceil(wait / 1000))));
    headers.set('retry-after-ms', String(Math.ceil(wait)));
  }
  for (const [name, value] of openaiHeaders(charge)) headers.set(name, value);
  const body = { error: { message, type, param: null, code: 'rate_limit_exceeded' } };
  return new Response(JSON.stringify(body), { status: 429, headers });
}
