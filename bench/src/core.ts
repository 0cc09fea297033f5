// `pnpm bench:core`: sluice's RateLimiter + MemoryStore against rate-limiter-flexible's RateLimiterMemory
// (decisions/s and heap per key), then against every peer's memory store (measure/core-peers.ts),
// then what @sluice/ai's token budgets cost (measure/ai.ts; `--ai-only` runs just that section).

import { corePairs, FIXED_CONFIG, heapSubjects, RLF_CONFIG } from './cases/core.js';
import { parseCommand, shared } from './cli/args.js';
import { type AiFigures, measureAi } from './measure/ai.js';
import { GCRA_CONFIG, machine, median, RESIDENT_CONFIG } from './measure/common.js';
import { heapPerKey, scaleAt } from './measure/core-heap.js';
import { IN_FLIGHT, makeKeys, measurePairs } from './measure/core-loops.js';
import { measureOperations } from './measure/core-operations.js';
import { runPeers } from './measure/core-peers.js';
import { finishPart } from './report/render.js';
import type { CoreReport } from './report/types.js';
import { coreFailed, ESTIMATE_TARGET_NS, pass } from './report/verdicts.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:core -- [options]',
  summary:
    "Core decisions: sluice's RateLimiter + MemoryStore against rate-limiter-flexible's RateLimiterMemory (decisions/s, heap bytes per key), then against every peer's in-memory store.",
  options: {
    rounds: shared.rounds(5),
    ms: shared.ms(600),
    keys: { type: 'number', default: 100000, help: 'pre-built keys of the "100k keys" rows' },
    json: shared.json,
    ...shared.scale('heap bytes'),
    'peer-heap-keys': {
      type: 'numbers',
      default: [100000, 1000000],
      help: 'key counts of the every-peer heap rows (heap per key incl. key text)',
    },
    // The every-peer section runs in a process of its own, so other sections leave no JIT trace.
    'peers-only': { type: 'boolean', help: 'only the every-peer section' },
    'no-peers': { type: 'boolean', help: 'skip the every-peer section' },
    'ai-only': { type: 'boolean', help: 'only the @sluice/ai section (estimate, charge, consume)' },
  },
});
const { rounds: ROUNDS, ms: MEASURE_MS, keys: MANY } = args;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('bench:core needs node --expose-gc (use `pnpm bench:core`)');
  process.exit(1);
}

const SLUICE_CONFIG = `RateLimiter + MemoryStore({ maxKeys: keys }), ${GCRA_CONFIG} / ${FIXED_CONFIG}`;

/** The @sluice/ai rows, printed; the estimate held to <= 5 µs p50 (docs/guide/ai.md). */
async function aiSection(): Promise<AiFigures> {
  const ai = await measureAi();
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
  console.log(
    `ai: estimateTokens of a ${ai.bodyBytes} B body (${ai.tokens} tokens): ${us(ai.estimateP50Ns)} p50 ` +
      `(p90 ${us(ai.estimateP90Ns)}) without a tokenizer (target <= 5 µs p50: ` +
      `${ai.estimateP50Ns <= ESTIMATE_TARGET_NS ? 'PASS' : 'FAIL'}), ${us(ai.estimateTokenizerP50Ns)} p50 with ` +
      "gpt-tokenizer's countTokens (CPU time)",
  );
  console.log(
    `ai: tokenLimiter charge of that body ${us(ai.chargeP50Ns)} p50, with its settle ` +
      `${us(ai.chargeSettleP50Ns)}; RateLimiter.consume of the same cost ${us(ai.consumeP50Ns)} ` +
      '(memory store, GCRA, 1,000 keys; CPU time)',
  );
  return ai;
}

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
  };
  console.log(`machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}, ${host.platform}`);
  if (args['ai-only']) {
    report.ai = await aiSection();
    return finishPart('core', report, pass(!coreFailed(report)), args.json);
  }

  // --- heap first, on a clean heap ---
  if (!args['peers-only'])
    for (const [name, subject] of Object.entries(heapSubjects(MANY))) {
      const [overhead, withKeys] = await heapPerKey(subject, MANY);
      report.heap.push({ name, keys: MANY, overhead, withKeys });
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

  if (!args['peers-only']) {
    // --- throughput ---
    const pairs = corePairs({ one: ['user:42'], many: makeKeys(MANY) }, MANY, MEASURE_MS);
    await measurePairs(pairs, ROUNDS);
    for (const c of pairs)
      report.throughput.push({
        label: c.label,
        judged: c.judged,
        sluice: median(c.a_),
        rlf: median(c.b_),
        sluiceRounds: c.a_,
        rlfRounds: c.b_,
      });
    // --- operations: the snapshot lookup per decision, top-K per denial ---
    const ops = await measureOperations();
    report.operations = ops;
    console.log(
      `operations: ${ops.cidrs} deny CIDRs (half IPv6): +${ops.lookupP50Ns.toFixed(0)} ns p50 ` +
        `(p90 ${ops.lookupP90Ns.toFixed(0)} ns) per decision, ${ops.idleP50Ns.toFixed(1)} ns with no entry; ` +
        `top-K (k=1024, Zipf 1.1) ${ops.topKNsPerUpdate.toFixed(0)} ns per update (CPU time)`,
    );
    console.log(
      `operations: ${ops.patterns} wildcard user and key patterns: ${ops.patternP50Ns.toFixed(0)} ns p50 ` +
        `(p90 ${ops.patternP90Ns.toFixed(0)} ns) per decision, half of them matching one ` +
        `(target <= 500 ns p50: ${ops.patternP50Ns <= 500 ? 'PASS' : 'FAIL'}; CPU time)`,
    );
    report.ai = await aiSection();
    if (args.scale) {
      const rows = [];
      for (const n of args['scale-keys']) {
        rows.push(await scaleAt(n, args['scale-rounds'], MEASURE_MS));
        process.stderr.write(`scale ${n} keys done\n`);
      }
      report.scale = { config: RESIDENT_CONFIG, rounds: args['scale-rounds'], rows };
    }
  }
  finishPart('core', report, pass(!coreFailed(report)), args.json);
}

await main();
