import { sha1 } from './runtime/sha1.js';

/** Keys longer than this many characters are replaced by their hash. */
export const MAX_TAG_LENGTH = 200;

/**
 * The Redis key for a limiter key: `<prefix>{<key>}` when `hashTag` (the default; what
 * `RedisStore` uses on a Cluster), else `<prefix><key>` (what it uses on a standalone
 * `Redis`, where there are no slots, and where the two braces would cost memory: on
 * Redis 7.0 (jemalloc) `MEMORY USAGE` of an integer value is 56 B for a key of up to 14
 * characters and 72 B for 15 to 30, so `sl:user:12345` takes 56 B and `{sl:user:12345}` 72 B).
 *
 * The braces are a Cluster hash tag, so the slot is decided by the limiter key alone, and
 * every Redis key of one limit lands in one slot. In both forms, a key that contains `{`
 * or `}` (which could otherwise pick the slot from a part of user-supplied text) or is
 * longer than {@link MAX_TAG_LENGTH} is replaced by `#` and its SHA-1 (base64url), so user
 * text can neither move a key to another slot nor lengthen it without bound. So is an
 * empty key (`{}` is no hash tag to Redis) and a key starting with `#` (the mark of a
 * hashed key: a literal `#<hash>` must not share the bucket of the key it hashes).
 * The same rule for both forms means an untagged key never contains a brace after the
 * prefix, so it can never equal a tagged one, and adding the braces around its text gives
 * the tagged key of the same limiter key.
 */
export function redisKey(prefix: string, key: string, hashTag = true): string {
  const text =
    key.length > MAX_TAG_LENGTH ||
    key.length === 0 ||
    key.charCodeAt(0) === 35 /* # */ ||
    key.includes('{') ||
    key.includes('}')
      ? `#${sha1(key, 'base64url')}`
      : key;
  return hashTag ? `${prefix}{${text}}` : prefix + text;
}

const utf8 = new TextEncoder();

/** CRC16-XMODEM (Redis Cluster's key hash), table-driven. */
const CRC16 = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[i] = crc & 0xffff;
  }
  return table;
})();

/**
 * The Redis Cluster slot (0..16383) of a Redis key, by Redis's rule: CRC16 of the UTF-8
 * bytes of the hash tag (the text between the first `{` and the next `}`, when not empty),
 * else of the whole key. Same result as ioredis's `cluster-key-slot`.
 */
export function keySlot(key: string): number {
  let start = 0;
  let end = key.length;
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    const code = key.charCodeAt(i);
    if (code >= 0x80) return slotOfBytes(utf8.encode(key.slice(start, end)));
    crc = ((crc << 8) & 0xff00) ^ CRC16[((crc >> 8) ^ code) & 0xff]!;
  }
  return crc & 16383;
}

function slotOfBytes(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xff00) ^ CRC16[((crc >> 8) ^ byte) & 0xff]!;
  return crc & 16383;
}
