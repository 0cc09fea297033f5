/** Four decimal parts without leading zeros (ipaddr.js also reads `1.2.3`, octal, hex). */
export const DOTTED_QUAD =
  /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Whether `text` is an IP address: a dotted quad (four decimal parts 0-255, no leading
 * zeros), or IPv6 as the runtime's WHATWG URL parser reads it (IPv4-mapped included; no
 * zone). Front doors refuse a forwarded hop that is not one, as they refuse an empty one.
 * // perf: the URL parser, not ipaddr.js: this runs on the fetch front doors, whose Worker
 * // bundles would carry ipaddr.js (about 4 KB gzip) for it.
 * @example isIpText('10.0.0.1') // true; isIpText('999.1.1.1') and isIpText('not-an-ip'): false
 */
export function isIpText(text: string): boolean {
  if (!text.includes(':')) return DOTTED_QUAD.test(text);
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}
