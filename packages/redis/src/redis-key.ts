import { createHash } from 'node:crypto';

/** Keys longer than this many characters are replaced by their hash. */
export const MAX_TAG_LENGTH = 200;

/**
 * The Redis key for a limiter key: `<prefix>{<key>}`. The braces are a Cluster hash tag, so
 * the slot is decided by the limiter key alone, and every Redis key of one limit lands in
 * one slot. A key that contains `{` or `}` (which could otherwise pick the slot from a part
 * of user-supplied text) or is longer than {@link MAX_TAG_LENGTH} is replaced by its
 * SHA-1, so user text can neither move a key to another slot nor lengthen it without bound.
 * So is an empty key (`{}` is no hash tag to Redis) and a key starting with `#` (the mark
 * of a hashed key: a literal `#<hash>` must not share the bucket of the key it hashes).
 */
export function redisKey(prefix: string, key: string): string {
  if (
    key.length > MAX_TAG_LENGTH ||
    key.length === 0 ||
    key.charCodeAt(0) === 35 /* # */ ||
    key.includes('{') ||
    key.includes('}')
  ) {
    return `${prefix}{#${createHash('sha1').update(key).digest('base64url')}}`;
  }
  return `${prefix}{${key}}`;
}
