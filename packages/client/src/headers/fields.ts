import type { HeadersLike } from './types.js';

/** A header's value, or `undefined` when absent or blank. */
export function read(headers: HeadersLike, name: string): string | undefined {
  let value: string | null;
  try {
    value = headers.get(name);
  } catch {
    return undefined;
  }
  return value === null || value.trim() === '' ? undefined : value;
}

/** A non-negative integer header (`10`), else `undefined`. */
export function integerField(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,15}\s*$/.test(text)) return undefined;
  return Number(text);
}

/** A non-negative decimal header (`1.5`), else `undefined`. */
export function decimalField(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,15}(\.\d{1,9})?\s*$/.test(text)) return undefined;
  return Number(text);
}

/**
 * An absolute time the server sent (an HTTP date, an RFC 3339 reset) on the caller's clock:
 * read against the response's own `Date` when it has one, so a skew between the two clocks
 * cancels out; never before `now`.
 */
export function onCallerClock(headers: HeadersLike, at: number, now: number): number {
  const dateText = read(headers, 'date');
  const sent = dateText === undefined ? Number.NaN : Date.parse(dateText);
  const base = Number.isNaN(sent) ? at - now : at - sent;
  return now + Math.max(0, base);
}
