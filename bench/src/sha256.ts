// `pnpm bench:sha256`: SHA-256 of a 100-character key segment, node:crypto against the core's pure
// TypeScript (the edge runtimes'), median of `--rounds` runs of `--n` hashes.
import { createHash } from 'node:crypto';
import { pureSha256Base64url } from '../../packages/core/src/common/sha256.js';
import { parseCommand, shared } from './cli/args.js';
import { interleave, median } from './measure/common.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:sha256 -- [options]',
  summary:
    "SHA-256 of a 100-character key segment: node:crypto against the core's pure TypeScript.",
  options: {
    rounds: shared.rounds(7),
    n: { type: 'number', default: 200_000, help: 'hashes per round' },
  },
});
const { rounds: ROUNDS, n: N } = args;
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
const [nodeNs, pureNs] = await interleave([node, pureSha256Base64url], ROUNDS, perHash);
console.log(
  `SHA-256 of a 100-character segment, median of ${ROUNDS} x ${N} (Node ${process.version}):`,
);
console.log(`  node:crypto createHash   ${(median(nodeNs) / 1000).toFixed(2)} µs`);
console.log(`  pure TypeScript (edge)   ${(median(pureNs) / 1000).toFixed(2)} µs`);
