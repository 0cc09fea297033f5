/**
 * The shard of `text` among `shards`: FNV-1a (32 bits) over its UTF-16 code units, modulo
 * `shards`. Stable across versions, runtimes and processes (a key must always find the
 * same object); not a defence: keys are sluice's own, their subjects already hashed.
 */
export function shardOf(text: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
