/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as unpadded base64url, on any runtime:
 * Node's `crypto` where the runtime has it (Node, Bun, Deno: found through
 * `process.getBuiltinModule`, no static `node:` import), else a pure-TypeScript
 * implementation (Workers without `nodejs_compat`, Vercel's edge runtime, browsers). Both
 * give the same bytes (a test compares them on 10,000 random strings), so a key hashed on
 * one runtime is the key hashed on every other. Never a weaker hash: a client must not be
 * able to aim its text at a victim's bucket.
 */

/** The SHA-256 digest of `text` (UTF-8; lone surrogates as U+FFFD, as Node and `TextEncoder` do), base64url without padding. */
export function sha256Base64url(text: string): string {
  if (nodeHash === undefined) nodeHash = findNodeHash();
  return nodeHash === null ? pureSha256Base64url(text) : nodeHash(text);
}

/** Node's hash, looked up on first use (never at module scope): `null` when absent. */
let nodeHash: ((text: string) => string) | null | undefined;

function findNodeHash(): ((text: string) => string) | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = proc?.getBuiltinModule?.('crypto') as
    | { createHash?: (algorithm: string) => { update(t: string): { digest(e: string): string } } }
    | undefined;
  const createHash = crypto?.createHash;
  if (typeof createHash !== 'function') return null;
  return (text) => createHash('sha256').update(text).digest('base64url');
}

/**
 * Round constants (the first 32 bits of the fractional parts of the cube roots of the first
 * 64 primes) and initial hash values (of the square roots of the first 8), computed rather
 * than written out: a smaller bundle. Every fraction x 2^32 is at least 0.024 from an integer,
 * so any `Math.cbrt` within about 3,000 ulp gives these bits (a test checks them).
 */
export const K = new Uint32Array(64);
export const H0 = new Uint32Array(8);
for (let n = 0, p = 2; n < 64; p++) {
  let prime = true;
  for (let d = 2; d * d <= p; d++) if (p % d === 0) prime = false;
  if (!prime) continue;
  if (n < 8) H0[n] = (Math.sqrt(p) % 1) * 2 ** 32;
  K[n++] = (Math.cbrt(p) % 1) * 2 ** 32;
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The pure-TypeScript SHA-256 of `text`'s UTF-8 bytes, base64url without padding. */
export function pureSha256Base64url(text: string): string {
  return base64url(sha256(encoder.encode(text)));
}

const encoder = new TextEncoder();

/** The message schedule, reused by every call (the hash is synchronous). */
const W = new Uint32Array(64);

type Eight = [number, number, number, number, number, number, number, number];

/** SHA-256 of `bytes`: the 32-byte digest. */
export function sha256(bytes: Uint8Array): Uint8Array {
  const length = bytes.length;
  // The message, a 1 bit, zeros, and its length in bits (64-bit big-endian), in 64-byte blocks.
  const blocks = Math.ceil((length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const bits = padded.length - 8;
  const high = Math.floor(length / 0x20000000);
  const low = (length * 8) >>> 0;
  padded[bits] = high >>> 24;
  padded[bits + 1] = high >>> 16;
  padded[bits + 2] = high >>> 8;
  padded[bits + 3] = high;
  padded[bits + 4] = low >>> 24;
  padded[bits + 5] = low >>> 16;
  padded[bits + 6] = low >>> 8;
  padded[bits + 7] = low;

  let [h0, h1, h2, h3, h4, h5, h6, h7] = H0 as unknown as Eight;
  const w = W;
  for (let base = 0; base < padded.length; base += 64) {
    for (let t = 0; t < 16; t++) {
      const i = base + t * 4;
      w[t] = (padded[i]! << 24) | (padded[i + 1]! << 16) | (padded[i + 2]! << 8) | padded[i + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let hh = h7;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[t]! + w[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + hh) | 0;
  }
  const out = new Uint8Array(32);
  const words = [h0, h1, h2, h3, h4, h5, h6, h7];
  for (let i = 0; i < 8; i++) {
    const v = words[i]!;
    out[i * 4] = v >>> 24;
    out[i * 4 + 1] = v >>> 16;
    out[i * 4 + 2] = v >>> 8;
    out[i * 4 + 3] = v;
  }
  return out;
}

/** `bytes` as base64url without padding (RFC 4648 §5), as Node's `digest('base64url')`. */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]! + B64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]!;
  }
  return out;
}
