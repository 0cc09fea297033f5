// The SHA-1 RedisStore names scripts and hashes long keys by (runtime/sha1.ts): its
// pure-TypeScript form (Workers, Vercel's edge runtime) gives Node's bytes, so a script's
// EVALSHA digest and a hashed key are the same on every runtime (existing keys do not move).
import { createHash } from 'node:crypto';
import { redisKey } from '../src/redis-key.js';
import { pureSha1Of, sha1 } from '../src/runtime/sha1.js';

/** A random string of `length` UTF-16 units: ASCII, Latin, CJK, emoji, lone surrogates. */
function randomText(length: number, seed: number): string {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) >>> 0;
    return state;
  };
  const ranges = [
    [0x20, 0x7e],
    [0xa0, 0x2ff],
    [0x4e00, 0x9fff],
    [0xd800, 0xdfff],
  ] as const;
  let out = '';
  for (let i = 0; i < length; i++) {
    const r = next() % 10;
    if (r === 9) out += String.fromCodePoint(0x1f600 + (next() % 80));
    else {
      const [lo, hi] = ranges[r < 6 ? 0 : r < 7 ? 1 : r < 8 ? 2 : 3];
      out += String.fromCharCode(lo + (next() % (hi - lo + 1)));
    }
  }
  return out;
}

it("the pure-TS SHA-1 equals node:crypto's on 10,000 random strings (0 to 300 units), hex and base64url", () => {
  const mismatches: number[] = [];
  for (let i = 0; i < 10_000; i++) {
    const text = randomText(i % 301, i + 1);
    const hex = createHash('sha1').update(text).digest('hex');
    const b64 = createHash('sha1').update(text).digest('base64url');
    if (pureSha1Of(text, 'hex') !== hex || pureSha1Of(text, 'base64url') !== b64) {
      mismatches.push(i);
    }
  }
  expect(mismatches).toEqual([]);
});

it('the block edges (55, 56, 63, 64, 65 bytes) and the empty string', () => {
  for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128]) {
    const text = 'a'.repeat(n);
    expect(pureSha1Of(text, 'hex')).toBe(createHash('sha1').update(text).digest('hex'));
  }
  expect(sha1('abc', 'hex')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
});

it('a hashed Redis key is what it was with node:crypto (keys do not move)', () => {
  const key = 'x'.repeat(250);
  const expected = `sl:{#${createHash('sha1').update(key).digest('base64url')}}`;
  expect(redisKey('sl:', key)).toBe(expected);
  expect(`sl:{#${pureSha1Of(key, 'base64url')}}`).toBe(expected);
});
