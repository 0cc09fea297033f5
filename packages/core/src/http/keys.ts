import ipaddr from 'ipaddr.js';
import { sha256Base64url } from '../common/sha256.js';

/** Key segments longer than this, or with characters outside {@link SAFE_SEGMENT}, are hashed. */
export const MAX_SEGMENT_LENGTH = 100;

/** Characters a key segment may keep as is; anything else (braces, control characters…) is hashed. */
const SAFE_SEGMENT = /^[\w .:/@*+=-]*$/;

/**
 * A key segment safe to store: short, printable text is kept as is; anything long or
 * unusual (user-controlled text with `{`, `}`, control characters…) becomes `#` + a
 * 22-character SHA-256 digest, so no request can lengthen a key without bound or pick its
 * Redis Cluster slot.
 */
export function keySegment(text: string): string {
  if (text.length <= MAX_SEGMENT_LENGTH && SAFE_SEGMENT.test(text)) return text;
  return `#${sha256Base64url(text).slice(0, 22)}`;
}

/**
 * The subject of a request's key: the client IP, grouped by network. IPv4 is kept
 * as is; an IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is treated as its IPv4; any other
 * IPv6 address is reduced to its `/ipv6Subnet` network (`2001:db8:1:2::/64`), since one
 * user usually holds a whole /64. Text that is not an IP (a unix socket, an empty string)
 * becomes a hashed segment.
 *
 * @param ipv6Subnet - prefix length 1..128; default 64.
 */
export function ipSubject(ip: string, ipv6Subnet = 64): string {
  if (isDottedQuad(ip, 0)) return ip;
  if (ip.length > 7 && ip.startsWith('::ffff:') && isDottedQuad(ip, 7)) return ip.slice(7);
  let cache = ipv6Subjects.get(ipv6Subnet);
  if (cache === undefined) {
    cache = new Map();
    ipv6Subjects.set(ipv6Subnet, cache);
  }
  let subject = cache.get(ip);
  if (subject === undefined) {
    subject = parsedSubject(ip, ipv6Subnet);
    if (cache.size >= IPV6_CACHE_SIZE) cache.clear();
    cache.set(ip, subject);
  }
  return subject;
}

/** Subjects of the recent IPv6 (and other non-IPv4) addresses, by `ipv6Subnet`: parsing costs µs. */
const ipv6Subjects = new Map<number, Map<string, string>>();
const IPV6_CACHE_SIZE = 4096;

function parsedSubject(ip: string, ipv6Subnet: number): string {
  if (!ip.includes(':')) return keySegment(ip);
  if (!ipaddr.IPv6.isValid(ip)) return keySegment(ip);
  const parsed = ipaddr.IPv6.parse(ip);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  if (ipv6Subnet >= 128) return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6Subnet}`).toString()}/${ipv6Subnet}`;
}

/**
 * Whether `text` from `start` to its end is an IPv4 address in canonical dotted-quad form
 * (four decimal parts 0..255, no leading zeros): such text is its own subject, as parsing
 * and printing it would give it back.
 */
function isDottedQuad(text: string, start: number): boolean {
  const end = text.length;
  if (end - start < 7 || end - start > 15) return false;
  let parts = 0;
  let i = start;
  while (i < end) {
    const first = i;
    let value = 0;
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      value = value * 10 + (c - 48);
      i++;
    }
    const digits = i - first;
    if (digits === 0 || digits > 3 || value > 255 || (digits > 1 && text.charCodeAt(first) === 48))
      return false;
    parts++;
    if (i === end) break;
    if (text.charCodeAt(i) !== 46 /* . */ || parts === 4) return false;
    i++;
    if (i === end) return false;
  }
  return parts === 4;
}

/**
 * The user id a request is keyed by: a non-empty string or a finite number, on
 * every framework alike. Anything else (`undefined`, `null`, `''`, `NaN`, objects, arrays)
 * is no user: such requests are keyed by client IP, never by a shared `'[object Object]'`
 * or `''` bucket.
 */
export function userIdOf(value: unknown): string | number | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  return undefined;
}

/** Route strings by pattern and method: built once, the same string object on every request. */
const routeKeys = new Map<string, Map<string, string>>();
/** Patterns kept; routes are patterns, so few: this bounds adapters that pass odd text. */
const MAX_ROUTE_KEYS = 10_000;

/**
 * The route segment of a per-route limit's key: `METHOD pattern`
 * (`'GET /users/:id'`), with `HEAD` keyed as `GET` (the GET route serves it, so a HEAD
 * request shares its budget). `'*'` when the pattern is unknown (no route matched yet).
 * Returns the same string object for the same route, so its hash is computed once.
 */
export function routeKey(method: string, pattern: string | undefined): string {
  if (pattern === undefined) return '*';
  let byMethod = routeKeys.get(pattern);
  if (byMethod === undefined) {
    if (routeKeys.size >= MAX_ROUTE_KEYS) routeKeys.clear();
    byMethod = new Map();
    routeKeys.set(pattern, byMethod);
  }
  let key = byMethod.get(method);
  if (key === undefined) {
    key = `${method === 'HEAD' ? 'GET' : method} ${pattern}`;
    byMethod.set(method, key);
  }
  return key;
}
