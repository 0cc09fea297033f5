import { createHash, randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { base64url, H0, K, pureSha256Base64url, sha256Base64url } from '../../src/common/sha256.js';
import { STATUS_TEXT } from '../../src/common/status-text.js';
import { keySegment } from '../../src/keys/key-segment.js';

const nodeHash = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A random string of 0..300 UTF-16 units: ASCII, two- and three-byte UTF-8, pairs, lone surrogates. */
function randomSegment(): string {
  const bytes = randomBytes(600);
  const length = bytes[0]! + bytes[1]! / 6;
  let text = '';
  for (let i = 2; text.length < length && i + 1 < bytes.length; i += 2) {
    const pick = bytes[i]! % 8;
    const n = bytes[i + 1]!;
    if (pick < 4) text += String.fromCharCode(32 + (n % 95));
    else if (pick === 4) text += String.fromCharCode(0x80 + n * 7);
    else if (pick === 5) text += String.fromCharCode(0x800 + n * 200);
    else if (pick === 6) text += String.fromCodePoint(0x10000 + n * 3001);
    else text += String.fromCharCode(0xd800 + n * 8); // a lone surrogate (Node: U+FFFD)
  }
  return text;
}

describe('SHA-256 without node:crypto', () => {
  it('equals node:crypto on 10,000 random segments (UTF-8, surrogates, every padding length)', () => {
    for (let i = 0; i < 10_000; i++) {
      const text = randomSegment();
      expect(pureSha256Base64url(text)).toBe(nodeHash(text));
    }
  });

  it('equals node:crypto on the block boundaries (55, 56, 63, 64, 119, 120 bytes)', () => {
    for (const n of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 1000]) {
      const text = 'a'.repeat(n);
      expect(pureSha256Base64url(text)).toBe(nodeHash(text));
    }
    expect(pureSha256Base64url('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('base64url matches Node on every remainder', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 31, 32, 33]) {
      const bytes = randomBytes(n);
      expect(base64url(bytes)).toBe(bytes.toString('base64url'));
    }
  });

  it('the runtime-chosen hash is the same as node:crypto on Node', () => {
    expect(sha256Base64url('x'.repeat(150))).toBe(nodeHash('x'.repeat(150)));
  });

  it('existing Redis keys do not move: keySegment hashes as before (pinned digests)', () => {
    // Computed with the previous implementation (node:crypto createHash, first 22 base64url chars).
    expect(keySegment('{user}')).toBe(`#${nodeHash('{user}').slice(0, 22)}`);
    expect(keySegment('x'.repeat(101))).toBe('#xnWi5gSwzRIpwDbjzgyHQi');
    expect(keySegment('ok-segment')).toBe('ok-segment');
  });
});

describe('status texts without node:http', () => {
  it('has every error reason phrase Node has (400 to 599, what statusCode may be), spelled the same', () => {
    const errors = Object.entries(STATUS_CODES).filter(([code]) => Number(code) >= 400);
    for (const [code, text] of errors) expect(STATUS_TEXT[Number(code)]).toBe(text);
    expect(Object.keys(STATUS_TEXT)).toEqual(errors.map(([code]) => code));
  });
});

describe('SHA-256 constants, computed from the primes', () => {
  it('are the FIPS 180-4 round constants and initial hash values', () => {
    // FIPS 180-4 §4.2.2 and §5.3.3, a few of each end (the digests above check every one).
    expect([...K.slice(0, 4), ...K.slice(60)]).toEqual([
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2,
    ]);
    expect([...H0]).toEqual([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
      0x5be0cd19,
    ]);
  });
});
