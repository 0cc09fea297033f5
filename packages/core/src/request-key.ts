import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/** Key segments longer than this, or with characters outside {@link SAFE_SEGMENT}, are hashed. */
export const MAX_SEGMENT_LENGTH = 100;

/** Characters a key segment may keep as is; anything else (braces, control characters…) is hashed. */
const SAFE_SEGMENT = /^[\w .:/@*+=-]*$/;

/**
 * A key segment safe to store: short, printable text is kept as is; anything long or
 * unusual (user-controlled text with `{`, `}`, control characters…) becomes `#` + a
 * 22-character SHA-256 digest, so no request can lengthen a key without bound or pick its
 * Redis Cluster slot (DESIGN §5).
 */
export function keySegment(text: string): string {
  if (text.length <= MAX_SEGMENT_LENGTH && SAFE_SEGMENT.test(text)) return text;
  return `#${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
}

/**
 * The subject of a request's key: the client IP, grouped as DESIGN §5 asks. IPv4 is kept
 * as is; an IPv4-mapped IPv6 address (`::ffff:10.1.2.3`) is treated as its IPv4; any other
 * IPv6 address is reduced to its `/ipv6Subnet` network (`2001:db8:1:2::/64`), since one
 * user usually holds a whole /64. Text that is not an IP (a unix socket, an empty string)
 * becomes a hashed segment.
 *
 * @param ipv6Subnet - prefix length 1..128; default 64.
 */
export function ipSubject(ip: string, ipv6Subnet = 64): string {
  if (!ip.includes(':')) return keySegment(ip);
  if (!ipaddr.IPv6.isValid(ip)) return keySegment(ip);
  const parsed = ipaddr.IPv6.parse(ip);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  if (ipv6Subnet >= 128) return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6Subnet}`).toString()}/${ipv6Subnet}`;
}
