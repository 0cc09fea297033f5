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
