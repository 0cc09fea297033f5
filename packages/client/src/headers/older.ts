import type { BareItem, Dictionary, List } from 'structured-headers';
import { parseDictionary, parseList } from 'structured-headers';
import { decimalField, integerField, read } from './fields.js';
import type { HeadersLike, ObservedPolicy } from './types.js';

// The styles before draft-8 (one unnamed policy each): draft-7, draft-6 and legacy
// X-RateLimit-*.

/** The largest integer an RFC 9651 sf-integer can carry (15 digits). */
export const SF_INTEGER_MAX = 999_999_999_999_999;
/** Above this an `X-RateLimit-Reset` is an epoch in seconds (2001-09-09), not a delta. */
const EPOCH_SECONDS_FROM = 1e9;
/** Above this it is an epoch in ms. */
const EPOCH_MS_FROM = 1e12;

/** A non-negative sf-integer, or `undefined`. */
export function count(value: BareItem | undefined): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** An RFC 9651 list, or `undefined` when the text is not one. */
export function tryList(text: string): List | undefined {
  try {
    return parseList(text);
  } catch {
    return undefined;
  }
}

export function tryDictionary(text: string): Dictionary | undefined {
  try {
    return parseDictionary(text);
  } catch {
    return undefined;
  }
}

/** draft-6/7 `RateLimit-Policy: 10;w=1, 1000;w=3600`: the window of each quota. */
export function draft67Windows(policyList: List | undefined): Map<number, number> {
  const windows = new Map<number, number>();
  for (const [value, params] of policyList ?? []) {
    const q = count(value as BareItem);
    const w = count(params.get('w'));
    if (q === undefined || w === undefined || w === 0) continue;
    windows.set(q, Math.max(windows.get(q) ?? 0, w));
  }
  return windows;
}

function unnamed(
  quota: number | undefined,
  windows: Map<number, number>,
  remaining: number | undefined,
  resetAt: number | undefined,
): ObservedPolicy {
  return {
    id: `~${quota ?? ''}`,
    name: undefined,
    partitionKey: undefined,
    quota,
    windowSeconds: quota === undefined ? undefined : windows.get(quota),
    concurrent: false,
    tokens: false,
    remaining,
    resetAt,
    cost: undefined,
  };
}

/** draft-7 `RateLimit: limit=10, remaining=9, reset=1`. */
export function draft7(
  dict: Dictionary,
  windows: Map<number, number>,
  now: number,
): ObservedPolicy | undefined {
  const field = (key: string): number | undefined | null => {
    const member = dict.get(key);
    if (member === undefined) return undefined;
    return Array.isArray(member[0]) ? null : (count(member[0] as BareItem) ?? null);
  };
  const limit = field('limit');
  const remaining = field('remaining');
  const reset = field('reset');
  if (limit === null || remaining === null || reset === null) return undefined;
  if (limit === undefined && remaining === undefined) return undefined;
  return unnamed(limit, windows, remaining, reset === undefined ? undefined : now + reset * 1000);
}

/** draft-6 `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset`. */
export function draft6(
  headers: HeadersLike,
  windows: Map<number, number>,
  now: number,
): ObservedPolicy | undefined {
  // RateLimit-Limit may carry its policy (`10, 10;w=1`, drafts before -06): the first member.
  const limitText = read(headers, 'ratelimit-limit');
  const limitList = limitText === undefined ? undefined : tryList(limitText);
  const first = limitList?.[0]?.[0];
  const limit = first === undefined || Array.isArray(first) ? undefined : count(first);
  const remaining = integerField(read(headers, 'ratelimit-remaining'));
  const reset = resetField(read(headers, 'ratelimit-reset'), now);
  if (limit === undefined && remaining === undefined) return undefined;
  return unnamed(limit, windows, remaining, reset);
}

/** Legacy `X-RateLimit-*` (GitHub, Laravel, express-rate-limit, sluice's default). */
export function legacy(headers: HeadersLike, now: number): ObservedPolicy | undefined {
  const limit = integerField(read(headers, 'x-ratelimit-limit'));
  const remaining = integerField(read(headers, 'x-ratelimit-remaining'));
  if (limit === undefined && remaining === undefined) return undefined;
  const resetAfter = decimalField(read(headers, 'x-ratelimit-reset-after'));
  const reset =
    resetAfter === undefined
      ? resetField(read(headers, 'x-ratelimit-reset'), now)
      : now + Math.ceil(resetAfter * 1000);
  const resource = read(headers, 'x-ratelimit-resource')?.trim();
  const policy = unnamed(limit, new Map(), remaining, reset);
  if (resource !== undefined && /^[\x21-\x7e]{1,64}$/.test(resource)) {
    policy.id = `x-resource:${resource}`;
    policy.name = resource;
  }
  return policy;
}

/**
 * A reset header as a time on the caller's clock: an epoch in seconds (>= 1e9) or in ms
 * (>= 1e12), else delta seconds; fractions allowed (Discord sends `1470173023.123`).
 */
function resetField(text: string | undefined, now: number): number | undefined {
  const v = decimalField(text);
  if (v === undefined || v > SF_INTEGER_MAX) return undefined;
  if (v >= EPOCH_MS_FROM) return v;
  if (v >= EPOCH_SECONDS_FROM) return v * 1000;
  return now + Math.ceil(v * 1000);
}
