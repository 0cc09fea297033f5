/**
 * SHA-1 of a string's UTF-8 bytes on any runtime: Node's `crypto` where the runtime has it
 * (Node, Bun, Deno: found through `process.getBuiltinModule`, no static `node:` import),
 * else a pure-TypeScript implementation (Workers without `nodejs_compat`, Vercel's edge
 * runtime). Both give the same bytes, so a script's `EVALSHA` digest and a hashed Redis key
 * (`redisKey`) are the same on every runtime: existing keys do not move. SHA-1 because
 * Redis names scripts by it; for keys it only bounds their length and keeps braces out
 * (the key text is the limiter's, already hashed with SHA-256 where it holds user input).
 */

type Encoding = 'hex' | 'base64url';

/** The SHA-1 digest of `text` (UTF-8), as lowercase hex or unpadded base64url. */
export function sha1(text: string, encoding: Encoding): string {
  if (nodeHash === undefined) nodeHash = findNodeHash();
  return nodeHash === null
    ? encode(pureSha1(encoder.encode(text)), encoding)
    : nodeHash(text, encoding);
}

/** Node's hash, looked up on first use: `null` when absent. */
let nodeHash: ((text: string, encoding: Encoding) => string) | null | undefined;

function findNodeHash(): ((text: string, encoding: Encoding) => string) | null {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  // The bare name: a `node:` string would look like an import to a bundle check.
  const crypto = proc?.getBuiltinModule?.('crypto') as
    | { createHash?: (algorithm: string) => { update(t: string): { digest(e: string): string } } }
    | undefined;
  const createHash = crypto?.createHash;
  if (typeof createHash !== 'function') return null;
  return (text, encoding) => createHash('sha1').update(text).digest(encoding);
}

const encoder = new TextEncoder();
const HEX = '0123456789abcdef';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function encode(digest: Uint8Array, encoding: Encoding): string {
  let out = '';
  if (encoding === 'hex') {
    for (const byte of digest) out += HEX[byte >>> 4]! + HEX[byte & 15]!;
    return out;
  }
  for (let i = 0; i < digest.length; i += 3) {
    const a = digest[i]!;
    const b = digest[i + 1];
    const c = digest[i + 2];
    out += B64URL[a >>> 2]! + B64URL[((a & 3) << 4) | ((b ?? 0) >>> 4)]!;
    if (b !== undefined) out += B64URL[((b & 15) << 2) | ((c ?? 0) >>> 6)]!;
    if (c !== undefined) out += B64URL[c & 63]!;
  }
  return out;
}

const W = new Uint32Array(80);

/** SHA-1 (FIPS 180-4) of `bytes`: the 20-byte digest. */
function pureSha1(bytes: Uint8Array): Uint8Array {
  const length = bytes.length;
  const blocks = Math.ceil((length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) W[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 80; t++) {
      const x = W[t - 3]! ^ W[t - 8]! ^ W[t - 14]! ^ W[t - 16]!;
      W[t] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const temp = (((a << 5) | (a >>> 27)) + f + e + k + W[t]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = temp;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
  }
  const digest = new Uint8Array(20);
  const out = new DataView(digest.buffer);
  out.setUint32(0, h0);
  out.setUint32(4, h1);
  out.setUint32(8, h2);
  out.setUint32(12, h3);
  out.setUint32(16, h4);
  return digest;
}

/** The pure-TypeScript digest of `text`, encoded: for tests against Node's. */
export function pureSha1Of(text: string, encoding: Encoding): string {
  return encode(pureSha1(encoder.encode(text)), encoding);
}
