/**
 * `pnpm bench:core`: sluice's core (RateLimiter + MemoryStore) against
 * rate-limiter-flexible's RateLimiterMemory, in one run ("core, memory store"
 * and "heap per key" rows).
 *
 * Throughput: decisions/s, awaited one at a time and with 256 calls in flight, over 1 key and over
 * 100 000 pre-built keys taken round robin; sluice and RLF measured interleaved
 * (A B A B …) and the median of the rounds reported (the rows: cases/core.ts). Memory: heap
 * bytes per key after inserting 100 000 keys and a full GC (node --expose-gc).
 *
 * Then sluice against every peer's in-memory store (rate-limiter-flexible, express-rate-limit,
 * @fastify/rate-limit, koa-ratelimit) in the same run: see measure/core-peers.ts.
 */
import { corePairs, FIXED_CONFIG, heapSubjects, RLF_CONFIG } from './cases/core.js';
import { parseCommand, shared } from './cli/args.js';
import { GCRA_CONFIG, machine, RESIDENT_CONFIG } from './measure/common.js';
import { FLAT_MIN_RATIO, heapPerKey, type ScaleRow, scaleAt } from './measure/core-heap.js';
import { IN_FLIGHT, makeKeys, measurePairs } from './measure/core-loops.js';
import { runPeers } from './measure/core-peers.js';
import {
  type CoreReport,
  heapSection,
  scaleSection,
  throughputSection,
} from './report/core-part.js';
import { finishPart } from './report/part.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:core -- [options]',
  summary:
    "Core decisions: sluice's RateLimiter + MemoryStore against rate-limiter-flexible's RateLimiterMemory (decisions/s, heap bytes per key), then against every peer's in-memory store.",
  options: {
    rounds: shared.rounds(5),
    ms: shared.ms(600),
    keys: { type: 'number', default: 100000, help: 'pre-built keys of the "100k keys" rows' },
    json: shared.json,
    scale: {
      type: 'boolean',
      help: 'add the scale section: decisions/s and heap bytes per key at each of --scale-keys',
    },
    'scale-keys': { type: 'numbers', default: [1000, 100000, 1000000], help: 'key counts' },
    'scale-rounds': { type: 'number', default: 3, help: 'rounds per key count' },
    'peer-heap-keys': {
      type: 'numbers',
      default: [100000, 1000000],
      help: 'key counts of the every-peer heap rows (heap per key incl. key text)',
    },
    // `pnpm bench` runs the every-peer section so, in a process of its own, so that what the
    // other sections ran (fixed windows, other stores) leaves no trace in the JIT state of the
    // subjects it compares.
    'peers-only': { type: 'boolean', help: 'only the every-peer section' },
    'no-peers': { type: 'boolean', help: 'skip the every-peer section' },
  },
});
const ROUNDS = args.rounds;
const MEASURE_MS = args.ms;
const MANY = args.keys;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('bench:core needs node --expose-gc (use `pnpm bench:core`)');
  process.exit(1);
}

const SLUICE_CONFIG = `RateLimiter + MemoryStore({ maxKeys: keys }), ${GCRA_CONFIG} / ${FIXED_CONFIG}`;

async function main(): Promise<void> {
  const host = machine();
  const report: CoreReport = {
    kind: 'core',
    date: new Date().toISOString(),
    machine: host,
    config: {
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: MANY,
      inFlight: IN_FLIGHT,
      sluice: SLUICE_CONFIG,
      rlf: RLF_CONFIG,
    },
    throughput: [],
    heap: [],
    overall: 'PASS',
  };
  console.log(`machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, ${host.platform}`);
  console.log(
    `throughput: median of ${ROUNDS} rounds, ~${MEASURE_MS} ms per measurement, sluice and RLF interleaved; rows without "in flight" await each decision one at a time, "256 in flight" rows keep 256 calls outstanding (Promise.all per 256)\n`,
  );

  // --- heap first, on a clean heap ---
  const heapRows: [string, number, number][] = [];
  if (!args['peers-only'])
    for (const [name, subject] of Object.entries(heapSubjects(MANY))) {
      const [overhead, withKeys] = await heapPerKey(subject, MANY);
      heapRows.push([name, overhead, withKeys]);
    }

  // --- sluice vs every peer (heap with key text, then awaited decisions/s) ---
  if (!args['no-peers']) {
    report.peers = await runPeers({
      rounds: ROUNDS,
      ms: MEASURE_MS,
      keys: MANY,
      heapKeys: args['peer-heap-keys'],
    });
  }
  let failed = report.peers?.rows.some((r) => r.verdict === 'FAIL') ?? false;
  if (args['peers-only']) return finishPart(report, failed, args.json);

  // --- throughput ---
  const pairs = corePairs({ one: ['user:42'], many: makeKeys(MANY) }, MANY, MEASURE_MS);
  await measurePairs(pairs, ROUNDS);
  if (
    throughputSection(report, pairs, `RateLimiter + MemoryStore, ${GCRA_CONFIG} / ${FIXED_CONFIG}`)
  )
    failed = true;
  if (heapSection(report, heapRows, MANY)) failed = true;

  if (args.scale) {
    const rows: ScaleRow[] = [];
    for (const n of args['scale-keys']) {
      rows.push(await scaleAt(n, args['scale-rounds'], MEASURE_MS));
      process.stderr.write(`scale ${n} keys done\n`);
    }
    const how = {
      config: RESIDENT_CONFIG,
      rounds: args['scale-rounds'],
      ms: MEASURE_MS,
      flatMinRatio: FLAT_MIN_RATIO,
    };
    if (scaleSection(report, rows, how)) failed = true;
  }
  finishPart(report, failed, args.json);
}

await main();
