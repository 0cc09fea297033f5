/**
 * `pnpm bench:sha256`: what hashing one 100-character key segment costs (a long or unusual
 * segment is hashed: `keySegment`), with Node's `crypto` (Node, Bun, Deno) and with the
 * pure-TypeScript SHA-256 the core uses where there is no `node:crypto` (Workers, Vercel's
 * edge runtime). Median of `--rounds` (default 7) runs of `--n` (default 200,000) hashes.
 */
import { createHash } from 'node:crypto';
import { pureSha256Base64url } from '../../packages/core/src/common/sha256.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const ROUNDS = flag('rounds', 7);
const N = flag('n', 200_000);
const segments = Array.from(
  { length: 1024 },
  (_, i) => `${'k'.repeat(90)}-${String(i).padStart(9, '0')}`,
);

function perHash(hash: (text: string) => string): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink += hash(segments[i & 1023]!).length;
  const ns = Number(process.hrtime.bigint() - start) / N;
  if (sink === 0) throw new Error('unreachable');
  return ns;
}

const node = (text: string) => createHash('sha256').update(text).digest('base64url');
const results = { node: [] as number[], pure: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  results.node.push(perHash(node));
  results.pure.push(perHash(pureSha256Base64url));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `SHA-256 of a 100-character segment, median of ${ROUNDS} x ${N} (Node ${process.version}):`,
);
console.log(`  node:crypto createHash   ${(median(results.node) / 1000).toFixed(2)} µs`);
console.log(`  pure TypeScript (edge)   ${(median(results.pure) / 1000).toFixed(2)} µs`);
