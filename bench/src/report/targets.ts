/**
 * The targets table of bench/results.md: each figure's floor (what must hold), aim, verdict
 * and gap, from the parts' JSON.
 */

import type { PeerRow } from '../measure/core-peers.js';
import type { PeerMemoryReport } from '../measure/redis-memory.js';
import type { CoreReport } from './core-part.js';
import { bytes, count, kps, mps, ns, pct, ratio, us } from './format.js';
import type { HttpCase, HttpReport, HttpRow } from './http-part.js';
import type { RedisReport } from './redis-part.js';

export interface TargetRow {
  target: string;
  measured: string;
  floor: string;
  aim: string;
  verdict: string;
  gap: string;
}

export function coreTargets(core: CoreReport): TargetRow[] {
  const rows: TargetRow[] = [];
  const floor = core.throughput.find((r) => r.label.startsWith('extra: await floor'));
  const many = `${core.config.keys === 100_000 ? '100k' : core.config.keys} keys`;
  // [the compared row, its "what the store alone does" row, the aim in decisions/s]
  const cases: [string, number][] = [
    ['1 key', 10e6],
    [many, 4e6],
  ];
  for (const [keys, aim] of cases) {
    // The memory store's targets are judged on the store's own (synchronous) API; the
    // awaited RateLimiter.consume row is shown beside it with what bounds it (the await).
    const store = core.throughput.find(
      (x) => x.label === `MemoryStore (store.consume, its own API): GCRA, ${keys}`,
    );
    const limiter = core.throughput.find(
      (x) => x.label === `RateLimiter.consume (awaited): GCRA, ${keys}`,
    );
    if (store === undefined) continue;
    const pass = store.ratio >= 2;
    const aimMet = store.sluice >= aim;
    const parts: string[] = [];
    if (!pass)
      parts.push(`floor: ${ratio(store.ratio)} of RLF, ${pct(1 - store.ratio / 2)} short of 2x`);
    if (!aimMet)
      parts.push(`aim: ${mps(store.sluice)} is ${pct(store.sluice / aim)} of ${mps(aim)}`);
    if (limiter !== undefined) {
      parts.push(
        `awaited RateLimiter.consume: ${mps(limiter.sluice)} vs RLF ${mps(limiter.rlf)} = ${ratio(limiter.ratio)}` +
          (floor === undefined
            ? ''
            : ` (an await of a constant alone runs at ${mps(floor.sluice)}: ${ratio(floor.sluice / limiter.rlf)} of RLF is the ceiling of any promise API here)`),
      );
    }
    rows.push({
      target: `core, memory store, GCRA, ${keys}`,
      measured: `sluice MemoryStore ${mps(store.sluice)}, RLF RateLimiterMemory ${mps(store.rlf)}: ${ratio(store.ratio)}`,
      floor: '>= 2x rate-limiter-flexible',
      aim: `>= ${mps(aim)}`,
      verdict: `${pass ? 'PASS' : 'FAIL'}; aim ${aimMet ? 'met' : 'not met'}`,
      gap: parts.join('; ') || '-',
    });
  }
  const withTarget = core.throughput.filter((r) => r.target !== undefined);
  const failing = withTarget.filter((r) => r.verdict === 'FAIL');
  rows.push({
    target: 'core, memory store, every compared row (GCRA and fixed window, 1 key and many)',
    measured: `${withTarget.length - failing.length} of ${withTarget.length} at >= 2x RLF`,
    floor: '>= 2x rate-limiter-flexible',
    aim: '-',
    verdict: failing.length === 0 ? 'PASS' : 'FAIL',
    gap: failing.map((r) => `${r.label}: ${ratio(r.ratio)}`).join('; ') || '-',
  });
  const heap = core.heap.find((h) => h.name === 'sluice GCRA');
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  if (heap !== undefined) {
    const pass = heap.overhead <= 100;
    rows.push({
      target: `heap per key, memory store (GCRA, ${count(heap.keys)} keys, store overhead)`,
      measured: `sluice ${bytes(heap.overhead)}${rlfHeap ? `, RLF ${bytes(rlfHeap.overhead)}: ${ratio(heap.overhead / rlfHeap.overhead)}` : ''}`,
      floor: '<= 100 B',
      aim: '<= 100 B',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass ? '-' : `${bytes(heap.overhead - 100)} over`,
    });
  }
  if (core.scale !== undefined) {
    const s = core.scale;
    const worst = Math.max(...s.rows.map((r) => r.heapSluice));
    rows.push({
      target: `heap per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys`,
      measured: s.rows.map((r) => bytes(r.heapSluice)).join(' / '),
      floor: '<= 100 B',
      aim: '<= 100 B',
      verdict: worst <= 100 ? 'PASS' : 'FAIL',
      gap: worst <= 100 ? '-' : `worst ${bytes(worst)}`,
    });
    const first = s.rows[0]!;
    const last = s.rows.at(-1)!;
    const pass = s.flatness.sluice >= s.flatMinRatio;
    rows.push({
      target: `memory store: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
      measured: `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${s.flatness.sluice.toFixed(2)} (${mps(first.sluice)} -> ${mps(last.sluice)}), RLF ${s.flatness.rlf.toFixed(2)}`,
      floor: `ratio >= ${s.flatMinRatio} (this note's reading of "flat")`,
      aim: '-',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass
        ? '-'
        : `${ns(first.sluice)} -> ${ns(last.sluice)} per awaited decision; the synchronous store.consume alone goes ${ns(first.store)} -> ${ns(last.store)} (ratio ${s.flatness.store.toFixed(2)}), so the growth is in the store's own lookup and update, not in the limiter around it; RLF's store slows too (ratio ${s.flatness.rlf.toFixed(2)}), consistent with memory-access cost once the keys no longer fit in the CPU caches (not yet profiled)`,
    });
  }
  // sluice vs every peer's in-memory store: the rows with a goal.
  for (const r of core.peers?.rows ?? []) {
    if (r.target === undefined) continue;
    rows.push({
      target: `core vs every peer, sluice RateLimiter + MemoryStore: ${r.label}`,
      measured: r.figures.map((f) => `${f.name} ${peerValue(r, f.median)}`).join(', '),
      floor: r.target,
      aim: r.target,
      verdict: r.verdict,
      gap: r.gap,
    });
  }
  return rows;
}

/** A figure of the every-peer table: decisions/s or heap bytes per key. */
export const peerValue = (r: PeerRow, x: number) => (r.kind === 'rate' ? mps(x) : bytes(x));

type PeerMemoryRow = PeerMemoryReport['rows'][number];

export function redisTargets(redis: RedisReport): TargetRow[] {
  const rows: TargetRow[] = [];
  const t = redis.config.targets;
  const plain = redis.throughput.find((r) => r.sluice && !r.autoPipelining);
  const auto = redis.throughput.find((r) => r.sluice && r.autoPipelining);
  const rlf = (autoPipelining: boolean) =>
    redis.throughput.find((r) => !r.sluice && r.autoPipelining === autoPipelining);
  const rlfAuto = rlf(true);
  const ceiling = redis.ceiling.rate;
  const noop = redis.noopCeiling.rate;
  for (const r of [plain, auto]) {
    const rlfSame = r && rlf(r.autoPipelining);
    if (r === undefined || rlfAuto === undefined || rlfSame === undefined) continue;
    const checks: [string, boolean, string][] = [
      [
        `>= ${t.vsRlfAuto}x RLF (auto-pipelined)`,
        r.vsRlfAuto >= t.vsRlfAuto,
        `${ratio(r.vsRlfAuto)} of RLF, ${pct(1 - r.vsRlfAuto / t.vsRlfAuto)} short`,
      ],
      [
        `>= ${pct(t.ofCeiling)} of the EVALSHA -P 16 ceiling in the same run`,
        r.ofCeiling >= t.ofCeiling,
        `${pct(r.ofCeiling)} of the ceiling; needs ${kps(t.ofCeiling * ceiling)}, ${kps(t.ofCeiling * ceiling - r.rate)} more`,
      ],
    ];
    if (r.ofPlain !== null && plain !== undefined)
      checks.push([
        `no slower than without (>= ${t.autoOfPlain}x, the tolerance for noise)`,
        r.ofPlain >= t.autoOfPlain,
        `${ratio(r.ofPlain)} of sluice without auto-pipelining (${kps(r.rate)} vs ${kps(plain.rate)})`,
      ]);
    const failing = checks.filter(([, pass]) => !pass);
    rows.push({
      target: `Redis decisions/s, one client, ${redis.config.inFlight} in flight${r.autoPipelining ? ', ioredis enableAutoPipelining' : ''}`,
      measured:
        `sluice ${kps(r.rate)}, RLF ${kps(rlfSame.rate)}${r.autoPipelining ? '' : ` (auto-pipelined ${kps(rlfAuto.rate)})`}: ${ratio(r.vsRlfAuto)} RLF auto-pipelined; ` +
        `${pct(r.ofCeiling)} of redis-benchmark -P 16 EVALSHA gcra ${kps(ceiling)} (EVALSHA 'return 1': ${kps(noop)})` +
        (r.ofPlain === null ? '' : `; ${ratio(r.ofPlain)} of sluice without auto-pipelining`),
      floor: checks.map(([what]) => what).join('; '),
      aim: '-',
      verdict: failing.length === 0 ? 'PASS' : 'FAIL',
      gap: failing.map(([, , gap]) => gap).join('; ') || '-',
    });
  }
  const sluiceMem = redis.memory.filter((m) => m.sluice);
  const peerMem = redis.memory.filter((m) => !m.sluice);
  if (sluiceMem.length > 0) {
    const worst = Math.max(...sluiceMem.map((m) => m.bytes));
    rows.push({
      target: 'Redis bytes per key (MEMORY USAGE)',
      measured: `sluice ${sluiceMem.map((m) => `${m.bytes} B`).join(' / ')}; ${peerMem.map((m) => `${m.label} ${m.bytes} B`).join(', ')}`,
      floor: '<= 100 B',
      aim: '<= 56 B',
      verdict: `${worst <= 100 ? 'PASS' : 'FAIL'}; aim ${worst <= 56 ? 'met' : 'not met'}`,
      gap:
        worst <= 56
          ? '-'
          : `aim: ${worst - 56} B over 56 B (see the Redis memory table for the key names: the key text is part of the figure)`,
    });
  }
  if (redis.peerMemory !== undefined) {
    const m = redis.peerMemory;
    const [sluice, ...peers] = m.rows as [PeerMemoryRow, ...PeerMemoryRow[]];
    const best = peers.find((p) => p.label === m.best)!;
    const several = peers.filter((p) => p.keysPerSubject !== 1);
    rows.push({
      target: `Redis used_memory per GCRA key (${count(m.keys)} keys, INFO memory delta)`,
      measured: `sluice ${bytes(sluice.bytesPerKey)}; ${peers.map((p) => `${p.label} ${bytes(p.bytesPerKey)}`).join(', ')}`,
      floor: `<= the best peer (+ ${m.toleranceB} B)`,
      aim: '-',
      verdict: m.verdict,
      gap:
        [
          m.verdict === 'PASS'
            ? ''
            : `${bytes(sluice.bytesPerKey - best.bytesPerKey)} per key over ${best.label} (${bytes(best.bytesPerKey)})`,
          ...several.map(
            (p) => `${p.label} stores ${p.keysPerSubject.toFixed(2)} keys per subject`,
          ),
        ]
          .filter((x) => x !== '')
          .join('; ') || '-',
    });
  }
  if (redis.scale !== undefined) {
    const s = redis.scale;
    const first = s.rows[0]!;
    const last = s.rows.at(-1)!;
    const pass = s.flatness.sluice >= s.flatMinRatio;
    rows.push({
      target: `Redis: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
      measured: `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${s.flatness.sluice.toFixed(2)} (${kps(first.sluice)} -> ${kps(last.sluice)}), RLF ${s.flatness.rlf.toFixed(2)}`,
      floor: `ratio >= ${s.flatMinRatio} (this note's reading of "flat")`,
      aim: '-',
      verdict: pass ? 'PASS' : 'FAIL',
      gap: pass ? '-' : `${kps(first.sluice)} -> ${kps(last.sluice)}`,
    });
    rows.push({
      target: `Redis memory per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys (used_memory delta)`,
      measured: `sluice ${s.rows.map((r) => bytes(r.memSluice)).join(' / ')}; RLF ${s.rows.map((r) => bytes(r.memRlf)).join(' / ')}`,
      floor:
        '(info: sluice and RLF filled one after the other; judged: the used_memory per GCRA key row)',
      aim: '-',
      verdict: '(info)',
      gap: '-',
    });
  }
  return rows;
}

/** The HTTP targets, in the order of the summary, by bench:http case id. */
const HTTP_TARGETS: [string, string][] = [
  ['fastify-memory', 'Fastify, memory, allow'],
  ['fastify-deny', 'Fastify, memory, all requests denied (429)'],
  ['express-memory', 'Express, memory, allow'],
  ['koa-memory', 'Koa, memory, allow'],
  ['fastify-redis', 'Fastify, Redis, allow'],
  ['koa-redis', 'Koa, Redis, allow'],
];

/** The case's sluice row and its peers. */
export const sides = (c: HttpCase) => ({
  base: c.rows.find((r) => r.role === 'unlimited')!,
  sluice: c.rows.find((r) => r.role === 'sluice')!,
  peers: c.rows.filter((r) => r.role === 'peer'),
});

/** "0.93 of unlimited, +1.5 µs, CPU ratio 0.94" */
const vsUnlimited = (r: HttpRow) =>
  `${r.ratio!.toFixed(2)} of unlimited, ${us(r.deltaUs!)}, CPU ratio ${r.cpuRatio!.toFixed(2)}`;

function httpTarget(target: string, c: HttpCase): TargetRow {
  const { base, sluice, peers } = sides(c);
  const s = sluice.ratio!;
  const parts: string[] = [];
  if (c.floor !== null && s < c.floor)
    parts.push(`floor: ${s.toFixed(2)}, ${pct(1 - s / c.floor)} short of ${c.floor.toFixed(2)}`);
  for (const p of peers.filter((p) => p.ratio! >= s))
    parts.push(`behind ${p.limiter} (${p.ratio!.toFixed(2)})`);
  const aim: string[] = [];
  if (s < c.aim.ratio) aim.push(`${s.toFixed(2)} < ${c.aim.ratio.toFixed(2)}`);
  if (c.aim.us !== null && sluice.deltaUs! > c.aim.us)
    aim.push(`${us(sluice.deltaUs!)}, ${(sluice.deltaUs! - c.aim.us).toFixed(1)} µs over`);
  if (aim.length > 0) parts.push(`aim: ${aim.join(', ')}`);
  if (base.busy < 0.8)
    parts.push(
      `unlimited server busy ${pct(base.busy)}: not CPU-bound, so the req/s ratio is noisy; read the CPU ratio (${c.cpuVerdict})`,
    );
  return {
    target,
    measured: [sluice, ...peers].map((r) => `${r.limiter} ${vsUnlimited(r)}`).join('; '),
    floor: c.floorText,
    aim: c.aimText,
    verdict: `${c.verdict}; aim ${c.aimMet ? 'met' : 'not met'}; on CPU ratio ${c.cpuVerdict}`,
    gap: parts.join('; ') || '-',
  };
}

export function httpTargets(http: HttpReport | undefined, ran: boolean): TargetRow[] {
  return HTTP_TARGETS.map(([id, target]) => {
    const c = http?.cases.find((x) => x.id === id);
    if (c !== undefined) return httpTarget(target, c);
    return {
      ...notRun(target),
      measured: 'not measured',
      gap: !ran
        ? 'bench:http did not run'
        : http === undefined
          ? 'bench:http wrote no JSON (see bench/results/http.txt)'
          : 'not selected (--only)',
    };
  });
}

/** A target row of a part that did not run. */
export function notRun(what: string): TargetRow {
  return {
    target: what,
    measured: 'not run',
    floor: '-',
    aim: '-',
    verdict: 'NOT MEASURED',
    gap: '-',
  };
}
