import { describe, SluiceConfigError } from '../../common/errors.js';
import { keySegment } from '../../keys/key-segment.js';
import type { RequestView } from '../../limits/request-view.js';

/**
 * The subjects a request's keys are made of: the client IP (grouped by network), the user
 * id, the `key` option's answer, and the route.
 */

/**
 * The subject of a request's key: the client IP, grouped by network. IPv4 is kept
 * as is; an IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is treated as its IPv4; any other
 * IPv6 address is reduced to its `/ipv6Subnet` network (`2001:db8:1:2::/64`), since one
 * user usually holds a whole /64. An empty IP (a unix socket) becomes a hashed segment.
 *
 * @throws SluiceConfigError naming `ip` for other text that is not an IP (`not-an-ip`,
 *   `999.1.1.1`): a forwarded hop the framework's proxy setting trusted; the front door
 *   answers 500, as fetch's `ip.forwardedFor` refuses such a hop.
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

/**
 * An `ipv6Subnet` value, checked: an integer 1..128, the same bounds at construction (a
 * number) and per request (a function's answer).
 *
 * @throws SluiceConfigError naming `ipv6Subnet` otherwise (the value is a number, never key text).
 */
export function checkedSubnet(n: unknown): number {
  if (Number.isInteger(n) && (n as number) > 0 && (n as number) < 129) return n as number;
  throw new SluiceConfigError('ipv6Subnet', n, 'an integer from 1 to 128');
}

/** Where a request's `ipv6Subnet` function answer is kept: it is asked once per request. */
const SUBNET = Symbol();

/**
 * The prefix length `view`'s IPv6 client is grouped by: `s`, or `s(view)` checked
 * ({@link checkedSubnet}) and kept on the view for its other limits.
 */
export function subnetOf(view: RequestView, s: number | ((req: RequestView) => number)): number {
  if (typeof s === 'number') return s;
  const v = view as RequestView & { [SUBNET]?: number };
  v[SUBNET] ??= checkedSubnet(s(view));
  return v[SUBNET];
}

/** Subjects of the recent IPv6 (and other non-IPv4) addresses, by `ipv6Subnet`: parsing costs µs. */
const ipv6Subjects = new Map<number, Map<string, string>>();
const IPV6_CACHE_SIZE = 4096;

function parsedSubject(ip: string, ipv6Subnet: number): string {
  const zone = ip.indexOf('%');
  const hextets = ip.includes(':') ? parseIPv6(zone < 0 ? ip : ip.slice(0, zone)) : undefined;
  if (hextets === undefined) {
    // A socket always has an IP (or none: a unix socket, ''), so other text came from a
    // header a proxy setting trusts (`not-an-ip`, `999.1.1.1`): refused, never a bucket.
    if (ip !== '') throw new SluiceConfigError('ip', ip, 'an IP address from the proxy hop');
    return keySegment(ip);
  }
  // An embedded dotted quad after zeros (`::ffff:a.b.c.d`, and the deprecated `::a.b.c.d`)
  // is that IPv4 address, as ipaddr.js (the parser these keys were first made with) reads it.
  if (isIPv4Mapped(hextets) || (ip.includes('.') && hextets.slice(0, 6).every((h) => h === 0))) {
    const [high, low] = [hextets[6]!, hextets[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  if (ipv6Subnet >= 128) return formatIPv6(hextets) + (zone < 0 ? '' : ip.slice(zone));
  for (let i = 0; i < 8; i++) {
    const bits = Math.min(16, Math.max(0, ipv6Subnet - 16 * i));
    hextets[i] = hextets[i]! & ((0xffff << (16 - bits)) & 0xffff);
  }
  return `${formatIPv6(hextets)}/${ipv6Subnet}`;
}

/**
 * The 8 hextets of an IPv6 address, or undefined when `ip` is not one. The runtime's WHATWG
 * URL parser reads it (a well-kept parser on every runtime, no dependency in a bundle) and
 * prints it in hex; this only splits that text.
 */
function parseIPv6(ip: string): number[] | undefined {
  if (ip.includes('/') || ip.includes('[') || ip.includes(']')) return undefined;
  let host: string;
  try {
    host = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const part = (text: string) => (text === '' ? [] : text.split(':').map((h) => parseInt(h, 16)));
  const gap = host.indexOf('::');
  if (gap < 0) return part(host);
  const head = part(host.slice(0, gap));
  const tail = part(host.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/**
 * IPv6 text as keys have always had it (ipaddr.js's `toString()`, byte for byte, so existing
 * keys do not move): lower-case hex without leading zeros, and one run of two or more zero
 * hextets as `::`: the run whose text (`:0:0:`, or `0:0:` at the start, `:0:0` at the end)
 * is longest, the first on a tie.
 */
function formatIPv6(h: readonly number[]): string {
  let best = -1;
  let bestEnd = -1;
  let bestWeight = 0;
  for (let i = 0; i < 8; ) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    const weight = 2 * (j - i) + (i > 0 ? 1 : 0) - (j === 8 ? 1 : 0);
    if (j - i >= 2 && weight > bestWeight) {
      best = i;
      bestEnd = j;
      bestWeight = weight;
    }
    i = j;
  }
  const hex = (from: number, to: number) =>
    h
      .slice(from, to)
      .map((x) => x.toString(16))
      .join(':');
  if (best < 0) return hex(0, 8);
  return `${hex(0, best)}::${hex(bestEnd, 8)}`;
}

/** `::ffff:a.b.c.d`: the first 80 bits zero, then 16 ones. */
function isIPv4Mapped(h: readonly number[]): boolean {
  return h[0] === 0 && h[1] === 0 && h[2] === 0 && h[3] === 0 && h[4] === 0 && h[5] === 0xffff;
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

const USER_RESULT =
  'the user option to return a user id (a string or a number), or undefined / null for no user';
const USER_HINT = 'return the id itself, e.g. user: (req) => req.user?.id, not the user object';

/**
 * The `user` option's answer as a user id ({@link userIdOf}); `undefined` or `null`: no
 * user. A value of another kind is a mistake.
 * @throws {@link SluiceConfigError} naming `user` (the user object instead of its id…).
 */
export function checkedUser(id: unknown): string | number | undefined {
  if (typeof id === 'string' || typeof id === 'number') return userIdOf(id);
  if (id === undefined || id === null) return undefined;
  throw new SluiceConfigError('user', id, USER_RESULT, { hint: USER_HINT });
}

/**
 * The key segment of what the `key` option returned (or resolved to): a string, or a
 * finite number (as text). Anything else (a promise of a promise, an object, `undefined`)
 * is a `TypeError` naming the option, never a bucket shared by every request
 * (`'[object Promise]'`, `'undefined'`).
 */
export function keySubject(value: unknown): string {
  if (typeof value === 'string') return keySegment(value);
  if (typeof value === 'number' && Number.isFinite(value)) return keySegment(String(value));
  throw new TypeError(
    `sluice: the key option must return a string or a finite number (or a promise of one), got ${describe(value)}`,
  );
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
