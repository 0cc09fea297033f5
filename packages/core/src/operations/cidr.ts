import ipaddr from 'ipaddr.js';
import { SluiceConfigError } from '../common/errors.js';
import { DOTTED_QUAD, isIpText } from '../common/ip-text.js';

/**
 * CIDR networks, IPv4 and IPv6, parsed once (ipaddr.js) and matched per decision by a
 * binary search over sorted, disjoint ranges: O(log n) whatever the prefix lengths, with no
 * allocation for an IPv4 address and one cached parse per recent IPv6 address.
 */

/** A CIDR in canonical form (`'10.0.0.0/8'`, `'2001:db8::/32'`); IPv4-mapped folded to IPv4. */
export function canonicalCidr(text: unknown, option = 'cidr'): string {
  if (typeof text !== 'string' || text.length > 64) {
    throw new SluiceConfigError(option, text, 'a CIDR such as "10.0.0.0/8" or "2001:db8::/32"');
  }
  const host = text.split('/')[0]!;
  if (!host.includes(':') && !DOTTED_QUAD.test(host)) {
    throw new SluiceConfigError(option, text, 'a CIDR such as "10.0.0.0/8" or "2001:db8::/32"');
  }
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = text.includes('/') ? ipaddr.parseCIDR(text) : wholeAddress(text);
  } catch {
    throw new SluiceConfigError(option, text, 'a CIDR such as "10.0.0.0/8" or "2001:db8::/32"');
  }
  let [address, bits] = parsed;
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    address = (address as ipaddr.IPv6).toIPv4Address();
    bits -= 96;
  }
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

function wholeAddress(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const address = ipaddr.parse(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** A 128-bit address as four 32-bit words, most significant first; IPv4 as its /96 mapped form. */
type Words = [number, number, number, number];

function wordsOf(address: ipaddr.IPv6): Words {
  const p = address.parts;
  return [
    (p[0]! * 0x10000 + p[1]!) >>> 0,
    (p[2]! * 0x10000 + p[3]!) >>> 0,
    (p[4]! * 0x10000 + p[5]!) >>> 0,
    (p[6]! * 0x10000 + p[7]!) >>> 0,
  ];
}

/**
 * A set of CIDRs, each carrying a value; `match(ip)` answers the value of a network that
 * contains `ip` (`undefined`: none). When networks nest, the outer one answers.
 */
export class CidrSet<T> {
  /** IPv4 ranges: starts and ends (inclusive) as unsigned 32-bit numbers, sorted, disjoint. */
  readonly #v4Start: Float64Array;
  readonly #v4End: Float64Array;
  readonly #v4Values: T[];
  /** IPv6 ranges: 4 words per start and per end, sorted, disjoint. */
  readonly #v6Start: Uint32Array;
  readonly #v6End: Uint32Array;
  readonly #v6Values: T[];
  /** Number of networks given (before nested ones were folded). */
  readonly size: number;

  /** @param networks - canonical CIDRs (see {@link canonicalCidr}) and their values. */
  constructor(networks: Iterable<readonly [cidr: string, value: T]>) {
    const v4: [number, number, T][] = [];
    const v6: [Words, Words, T][] = [];
    let size = 0;
    for (const [cidr, value] of networks) {
      size++;
      const [address, bits] = ipaddr.parseCIDR(cidr);
      if (address.kind() === 'ipv4') {
        const b = address.toByteArray();
        const start = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
        const span = 2 ** (32 - bits);
        const first = start - (start % span);
        v4.push([first, first + span - 1, value]);
      } else {
        const start = wordsOf(address as ipaddr.IPv6);
        const end: Words = [0, 0, 0, 0];
        for (let w = 0; w < 4; w++) {
          const keep = Math.max(0, Math.min(32, bits - w * 32));
          const mask = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
          start[w] = (start[w]! & mask) >>> 0;
          end[w] = (start[w]! | ~mask) >>> 0;
        }
        v6.push([start, end, value]);
      }
    }
    this.size = size;
    // Sorted by start, then widest first: a network inside the previous kept one is dropped.
    v4.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const k4: [number, number, T][] = [];
    for (const r of v4) {
      const last = k4[k4.length - 1];
      if (last === undefined || r[0] > last[1]) k4.push(r);
    }
    this.#v4Start = Float64Array.from(k4, (r) => r[0]);
    this.#v4End = Float64Array.from(k4, (r) => r[1]);
    this.#v4Values = k4.map((r) => r[2]);
    v6.sort((a, b) => compare(a[0], b[0]) || compare(b[1], a[1]));
    const k6: [Words, Words, T][] = [];
    for (const r of v6) {
      const last = k6[k6.length - 1];
      if (last === undefined || compare(r[0], last[1]) > 0) k6.push(r);
    }
    this.#v6Start = new Uint32Array(k6.length * 4);
    this.#v6End = new Uint32Array(k6.length * 4);
    k6.forEach((r, i) => {
      this.#v6Start.set(r[0], i * 4);
      this.#v6End.set(r[1], i * 4);
    });
    this.#v6Values = k6.map((r) => r[2]);
  }

  /** Whether the set holds no network. */
  get empty(): boolean {
    return this.size === 0;
  }

  /**
   * The value of a network containing `ip` (any text a binding gives: IPv4, IPv6,
   * IPv4-mapped IPv6 such as `::ffff:1.2.3.4`, which matches IPv4 networks), or `undefined`.
   * Text that is not an IP matches nothing.
   */
  match(ip: string): T | undefined {
    const v4 = ipv4Number(ip, 0);
    if (v4 >= 0) return this.#match4(v4);
    const parsed = parsedIpv6(ip);
    if (parsed === undefined) return undefined;
    if (typeof parsed === 'number') return this.#match4(parsed);
    return this.#match6(parsed);
  }

  #match4(ip: number): T | undefined {
    const starts = this.#v4Start;
    // perf: the last range whose start <= ip, by binary search; then one compare with its end.
    let lo = 0;
    let hi = starts.length - 1;
    if (hi < 0 || ip < starts[0]!) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= ip) lo = mid;
      else hi = mid - 1;
    }
    return ip <= this.#v4End[lo]! ? this.#v4Values[lo] : undefined;
  }

  #match6(ip: Uint32Array): T | undefined {
    const starts = this.#v6Start;
    const n = starts.length >>> 2;
    if (n === 0 || compareAt(starts, 0, ip) > 0) return undefined;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (compareAt(starts, mid * 4, ip) <= 0) lo = mid;
      else hi = mid - 1;
    }
    return compareAt(this.#v6End, lo * 4, ip) >= 0 ? this.#v6Values[lo] : undefined;
  }
}

function compare(a: Words, b: Words): number {
  for (let w = 0; w < 4; w++) if (a[w] !== b[w]) return a[w]! - b[w]!;
  return 0;
}

/** `words[at..at+4]` compared with `ip`: negative when smaller. */
function compareAt(words: Uint32Array, at: number, ip: Uint32Array): number {
  for (let w = 0; w < 4; w++) {
    const d = words[at + w]! - ip[w]!;
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * `text` from `start` as an IPv4 address in dotted-quad form, as an unsigned 32-bit number;
 * -1 when it is not one.
 */
function ipv4Number(text: string, start: number): number {
  const end = text.length;
  if (end - start < 7 || end - start > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || parts === 3) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return -1; // a leading zero: not canonical
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return -1;
    } else return -1;
  }
  if (digits === 0 || parts !== 3) return -1;
  return value * 256 + part;
}

/** Parsed recent IPv6 addresses: words, an IPv4 number for a mapped one, null for no IP. */
const ipv6Parsed = new Map<string, Uint32Array | number | null>();
const IPV6_CACHE_SIZE = 4096;

function parsedIpv6(ip: string): Uint32Array | number | undefined {
  let parsed = ipv6Parsed.get(ip);
  if (parsed === undefined) {
    parsed = parseIpv6(ip);
    if (ipv6Parsed.size >= IPV6_CACHE_SIZE) ipv6Parsed.clear();
    ipv6Parsed.set(ip, parsed);
  }
  return parsed ?? undefined;
}

function parseIpv6(ip: string): Uint32Array | number | null {
  if (ip.startsWith('::ffff:')) {
    const v4 = ipv4Number(ip, 7);
    if (v4 >= 0) return v4;
  }
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return null;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) {
    const b = address.toIPv4Address().toByteArray();
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }
  return Uint32Array.from(wordsOf(address));
}

export { isIpText };
