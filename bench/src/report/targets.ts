/**
 * The rows of bench/results.md's targets table and of the summary (both pages): each figure,
 * what it is held to, its verdict and gap. The thresholds are bench/targets.json's, the
 * verdicts verdicts.ts's; this file only says them.
 */
import { bytes, count, kps, mps, ns, pct, ratio, us } from './format.js';
import type { CoreReport, HttpCase, HttpReport, HttpRow, RedisReport } from './types.js';
import {
  flatness,
  httpSides,
  judgeHttp,
  judgeKeyBytes,
  judgePeer,
  judgePeerMemory,
  judgeRedisRow,
  pass,
  TARGETS,
} from './verdicts.js';

export interface TargetRow {
  target: string;
  measured: string;
  floor: string;
  aim: string;
  verdict: string;
  gap: string;
}

/** A row from its first five cells (target, measured, floor, aim, verdict) and its gaps. */
const row = (
  [target, measured, floor, aim, verdict]: string[],
  gap: string[] | string,
): TargetRow => ({
  target: target!,
  measured: measured!,
  floor: floor!,
  aim: aim!,
  verdict: verdict!,
  gap: (Array.isArray(gap) ? gap.filter((x) => x !== '').join('; ') : gap) || '-',
});

/** A part that did not run. */
export const notRun = (target: string): TargetRow =>
  row([target, 'not run', '-', '-', 'NOT MEASURED'], '-');

const vsUnlimited = (r: HttpRow) =>
  `${r.ratio!.toFixed(2)} of unlimited, ${us(r.deltaUs!)}, CPU ratio ${r.cpuRatio!.toFixed(2)}`;

function httpTarget(title: string, c: HttpCase): TargetRow {
  const { target, base, sluice, peers } = httpSides(c);
  const j = judgeHttp(c);
  const s = sluice.ratio!;
  const f = target.floor;
  const aim = [
    s < target.aim.ratio ? `${s.toFixed(2)} < ${target.aim.ratio.toFixed(2)}` : '',
    target.aim.us !== undefined && sluice.deltaUs! > target.aim.us
      ? `${us(sluice.deltaUs!)}, ${(sluice.deltaUs! - target.aim.us).toFixed(1)} µs over`
      : '',
  ].filter((x) => x !== '');
  return row(
    [
      title,
      [sluice, ...peers].map((r) => `${r.limiter} ${vsUnlimited(r)}`).join('; '),
      j.floorText,
      j.aimText,
      `${j.verdict}; aim ${j.aimMet ? 'met' : 'not met'}; on CPU ratio ${j.cpuVerdict}`,
    ],
    [
      f !== undefined && s < f
        ? `floor: ${s.toFixed(2)}, ${pct(1 - s / f)} short of ${f.toFixed(2)}`
        : '',
      ...peers
        .filter((p) => p.ratio! >= s)
        .map((p) => `behind ${p.limiter} (${p.ratio!.toFixed(2)})`),
      aim.length > 0 ? `aim: ${aim.join(', ')}` : '',
      base.busy < 0.8
        ? `unlimited server busy ${pct(base.busy)}: not CPU-bound, so the req/s ratio is noisy; read the CPU ratio (${j.cpuVerdict})`
        : '',
    ],
  );
}

/** The HTTP targets, in the order of the table, by bench:http case id. */
const HTTP_TARGETS: [string, string][] = [
  ['fastify-memory', 'Fastify, memory, allow'],
  ['fastify-deny', 'Fastify, memory, all requests denied (429)'],
  ['express-memory', 'Express, memory, allow'],
  ['koa-memory', 'Koa, memory, allow'],
  ['fastify-redis', 'Fastify, Redis, allow'],
  ['koa-redis', 'Koa, Redis, allow'],
];

export function httpTargets(http: HttpReport | undefined, ran: boolean): TargetRow[] {
  return HTTP_TARGETS.map(([id, title]) => {
    const c = http?.cases.find((x) => x.id === id);
    if (c !== undefined) return httpTarget(title, c);
    const why = !ran
      ? 'bench:http did not run'
      : http === undefined
        ? 'bench:http wrote no JSON (see bench/results/http.txt)'
        : 'not selected (--only)';
    return { ...notRun(title), measured: 'not measured', gap: why };
  });
}

export function coreTargets(core: CoreReport): TargetRow[] {
  const t = TARGETS.core;
  const rows: TargetRow[] = [];
  const floor = core.throughput.find((r) => r.label.startsWith('extra: await floor'));
  const many = `${core.config.keys === 100_000 ? '100k' : core.config.keys} keys`;
  for (const [keys, aim] of [
    ['1 key', t.aim['1 key']],
    [many, t.aim.many],
  ] as const) {
    // Judged on the store's own (synchronous) API; the awaited RateLimiter.consume row is
    // shown beside it with what bounds it (the await).
    const store = core.throughput.find(
      (x) => x.label === `MemoryStore (store.consume, its own API): GCRA, ${keys}`,
    );
    const limiter = core.throughput.find(
      (x) => x.label === `RateLimiter.consume (awaited): GCRA, ${keys}`,
    );
    if (store === undefined) continue;
    const r = store.sluice / store.rlf;
    const ok = r >= t.vsRlf;
    const aimMet = store.sluice >= aim;
    const lr = limiter && limiter.sluice / limiter.rlf;
    rows.push(
      row(
        [
          `core, memory store, GCRA, ${keys}`,
          `sluice MemoryStore ${mps(store.sluice)}, RLF RateLimiterMemory ${mps(store.rlf)}: ${ratio(r)}`,
          `>= ${t.vsRlf}x rate-limiter-flexible`,
          `>= ${mps(aim)}`,
          `${pass(ok)}; aim ${aimMet ? 'met' : 'not met'}`,
        ],
        [
          ok ? '' : `floor: ${ratio(r)} of RLF, ${pct(1 - r / t.vsRlf)} short of ${t.vsRlf}x`,
          aimMet ? '' : `aim: ${mps(store.sluice)} is ${pct(store.sluice / aim)} of ${mps(aim)}`,
          limiter === undefined
            ? ''
            : `awaited RateLimiter.consume: ${mps(limiter.sluice)} vs RLF ${mps(limiter.rlf)} = ${ratio(lr!)}` +
              (floor === undefined
                ? ''
                : ` (an await of a constant alone runs at ${mps(floor.sluice)}: ${ratio(floor.sluice / limiter.rlf)} of RLF is the ceiling of any promise API here)`),
        ],
      ),
    );
  }
  const judged = core.throughput.filter((r) => r.judged);
  const failing = judged.filter((r) => r.sluice / r.rlf < t.vsRlf);
  rows.push(
    row(
      [
        'core, memory store, every compared row (GCRA and fixed window, 1 key and many)',
        `${judged.length - failing.length} of ${judged.length} at >= ${t.vsRlf}x RLF`,
        `>= ${t.vsRlf}x rate-limiter-flexible`,
        '-',
        pass(failing.length === 0),
      ],
      failing.map((r) => `${r.label}: ${ratio(r.sluice / r.rlf)}`),
    ),
  );
  const heap = core.heap.find((h) => h.name === 'sluice GCRA');
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  const max = `<= ${t.heapBytes} B`;
  if (heap !== undefined) {
    const ok = heap.overhead <= t.heapBytes;
    rows.push(
      row(
        [
          `heap per key, memory store (GCRA, ${count(heap.keys)} keys, store overhead)`,
          `sluice ${bytes(heap.overhead)}${rlfHeap ? `, RLF ${bytes(rlfHeap.overhead)}: ${ratio(heap.overhead / rlfHeap.overhead)}` : ''}`,
          max,
          max,
          pass(ok),
        ],
        ok ? '' : `${bytes(heap.overhead - t.heapBytes)} over`,
      ),
    );
  }
  rows.push(...coreMoreTargets(core));
  return rows;
}

/** The scale rows (heap, flatness) and the every-peer rows of the core targets. */
function coreMoreTargets(core: CoreReport): TargetRow[] {
  const t = TARGETS.core;
  const max = `<= ${t.heapBytes} B`;
  const rows: TargetRow[] = [];
  if (core.scale !== undefined) {
    const s = core.scale;
    const worst = Math.max(...s.rows.map((r) => r.heapSluice));
    rows.push(
      row(
        [
          `heap per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys`,
          s.rows.map((r) => bytes(r.heapSluice)).join(' / '),
          max,
          max,
          pass(worst <= t.heapBytes),
        ],
        worst <= t.heapBytes ? '' : `worst ${bytes(worst)}`,
      ),
    );
    const { first, last, ratios, verdict } = flatness(s.rows, t.flat, 'store');
    rows.push(
      row(
        [
          `memory store: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
          `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${ratios.sluice!.toFixed(2)} (${mps(first.sluice)} -> ${mps(last.sluice)}), RLF ${ratios.rlf!.toFixed(2)}`,
          `ratio >= ${t.flat} (this note's reading of "flat")`,
          '-',
          verdict,
        ],
        verdict === 'PASS'
          ? ''
          : `${ns(first.sluice)} -> ${ns(last.sluice)} per awaited decision; the synchronous store.consume alone goes ${ns(first.store)} -> ${ns(last.store)} (ratio ${ratios.store!.toFixed(2)}), so the growth is in the store's own lookup and update, not in the limiter around it; RLF's store slows too (ratio ${ratios.rlf!.toFixed(2)}), consistent with memory-access cost once the keys no longer fit in the CPU caches (not yet profiled)`,
      ),
    );
  }
  const peers = core.peers?.rows ?? [];
  for (const r of peers) {
    const j = judgePeer(r, peers);
    if (j.target === undefined) continue;
    rows.push(
      row(
        [
          `core vs every peer, sluice RateLimiter + MemoryStore: ${r.label}`,
          r.figures.map((f) => `${f.name} ${peerValue(r.kind, f.median)}`).join(', '),
          j.target,
          j.target,
          j.verdict,
        ],
        j.gap,
      ),
    );
  }
  return rows;
}

/** The Redis scale rows: flatness and used_memory per key at each size. */
function redisScaleTargets(s: NonNullable<RedisReport['scale']>): TargetRow[] {
  const t = TARGETS.redis;
  const rows: TargetRow[] = [];
  const { first, last, ratios, verdict } = flatness(s.rows, t.flat);
  rows.push(
    row(
      [
        `Redis: cost per decision flat from ${count(first.keys)} to ${count(last.keys)} keys`,
        `decisions/s at ${count(last.keys)} / at ${count(first.keys)}: sluice ${ratios.sluice!.toFixed(2)} (${kps(first.sluice)} -> ${kps(last.sluice)}), RLF ${ratios.rlf!.toFixed(2)}`,
        `ratio >= ${t.flat} (this note's reading of "flat")`,
        '-',
        verdict,
      ],
      verdict === 'PASS' ? '' : `${kps(first.sluice)} -> ${kps(last.sluice)}`,
    ),
    row(
      [
        `Redis memory per key at ${s.rows.map((r) => count(r.keys)).join(' / ')} keys (used_memory delta)`,
        `sluice ${s.rows.map((r) => bytes(r.memSluice)).join(' / ')}; RLF ${s.rows.map((r) => bytes(r.memRlf)).join(' / ')}`,
        '(info: sluice and RLF filled one after the other; judged: the used_memory per GCRA key row)',
        '-',
        '(info)',
      ],
      '-',
    ),
  );
  return rows;
}

/** A figure of the every-peer table: decisions/s or heap bytes per key. */
export const peerValue = (kind: 'rate' | 'heap', x: number) =>
  kind === 'rate' ? mps(x) : bytes(x);

export function redisTargets(redis: RedisReport): TargetRow[] {
  const t = TARGETS.redis;
  const rows: TargetRow[] = [];
  const ioredis = redis.throughput.filter((r) => r.sluice);
  const rlf = (auto: boolean) =>
    redis.throughput.find(
      (r) => !r.sluice && r.autoPipelining === auto && !/iovalkey|node-redis/.test(r.label),
    );
  const ceiling = redis.ceiling.rate;
  for (const r of ioredis) {
    const [rlfAuto, rlfSame] = [rlf(true), rlf(r.autoPipelining)];
    if (rlfAuto === undefined || rlfSame === undefined) continue;
    const j = judgeRedisRow(redis, r);
    rows.push(
      row(
        [
          `Redis decisions/s, one client, ${redis.config.inFlight} in flight${r.autoPipelining ? ', ioredis enableAutoPipelining' : ''}`,
          `sluice ${kps(r.rate)}, RLF ${kps(rlfSame.rate)}${r.autoPipelining ? '' : ` (auto-pipelined ${kps(rlfAuto.rate)})`}: ${ratio(j.vsRlfAuto)} RLF auto-pipelined; ` +
            `${pct(j.ofCeiling)} of redis-benchmark -P 16 EVALSHA gcra ${kps(ceiling)} (EVALSHA 'return 1': ${kps(redis.noopCeiling.rate)})` +
            (j.ofPlain === null ? '' : `; ${ratio(j.ofPlain)} of sluice without auto-pipelining`),
          [
            `>= ${t.vsRlfAuto}x RLF (auto-pipelined)`,
            `>= ${pct(t.ofCeiling)} of the EVALSHA -P 16 ceiling in the same run`,
            ...(j.ofPlain === null
              ? []
              : [`no slower than without (>= ${t.autoOfPlain}x, the tolerance for noise)`]),
          ].join('; '),
          '-',
          pass(!j.failed),
        ],
        j.checks.filter((c) => !c.ok).map((c) => c.gap),
      ),
    );
  }
  const sluiceMem = redis.memory.filter((m) => m.sluice);
  if (sluiceMem.length > 0) {
    const worst = judgeKeyBytes(Math.max(...sluiceMem.map((m) => m.bytes)));
    const most = Math.max(...sluiceMem.map((m) => m.bytes));
    rows.push(
      row(
        [
          'Redis bytes per key (MEMORY USAGE)',
          `sluice ${sluiceMem.map((m) => `${m.bytes} B`).join(' / ')}; ${redis.memory
            .filter((m) => !m.sluice)
            .map((m) => `${m.label} ${m.bytes} B`)
            .join(', ')}`,
          `<= ${t.keyBytes.floor} B`,
          `<= ${t.keyBytes.aim} B`,
          `${worst.pass}; aim ${worst.aimMet ? 'met' : 'not met'}`,
        ],
        worst.aimMet
          ? ''
          : `aim: ${most - t.keyBytes.aim} B over ${t.keyBytes.aim} B (see the Redis memory table for the key names: the key text is part of the figure)`,
      ),
    );
  }
  if (redis.peerMemory !== undefined) {
    const m = redis.peerMemory;
    const { sluice, peers, best, toleranceB, verdict } = judgePeerMemory(m);
    rows.push(
      row(
        [
          `Redis used_memory per GCRA key (${count(m.keys)} keys, INFO memory delta)`,
          `sluice ${bytes(sluice.bytesPerKey)}; ${peers.map((p) => `${p.label} ${bytes(p.bytesPerKey)}`).join(', ')}`,
          `<= the best peer (+ ${toleranceB} B)`,
          '-',
          verdict,
        ],
        [
          verdict === 'PASS'
            ? ''
            : `${bytes(sluice.bytesPerKey - best.bytesPerKey)} per key over ${best.label} (${bytes(best.bytesPerKey)})`,
          ...peers
            .filter((p) => p.keysPerSubject !== 1)
            .map((p) => `${p.label} stores ${p.keysPerSubject.toFixed(2)} keys per subject`),
        ],
      ),
    );
  }
  if (redis.scale !== undefined) rows.push(...redisScaleTargets(redis.scale));
  return rows;
}

/** case, sluice, best peer in the same run, goal, verdict: the summary of both pages. */
export interface SummaryRow {
  case: string;
  sluice: string;
  peer: string;
  goal: string;
  verdict: string;
}

const met = (ok: boolean, gap: string) => (ok ? 'met' : `not met: ${gap}`);
const k0 = (x: number) => `${(x / 1e3).toFixed(0)} k/s`;

function httpSummary(c: HttpCase | undefined, title: string, id: string): SummaryRow {
  const { ratio: goalRatio, us: goalUs } = TARGETS.http[id]!.aim;
  const goal = `>= ${goalRatio.toFixed(2)}${goalUs === undefined ? '' : `, <= +${goalUs} µs`}`;
  if (c === undefined) return { case: title, sluice: 'not run', peer: '-', goal, verdict: '-' };
  const { sluice, peers } = httpSides(c);
  const best = peers.reduce((a, b) => (b.ratio! > a.ratio! ? b : a));
  const gaps = [
    sluice.ratio! < goalRatio ? `ratio ${sluice.ratio!.toFixed(2)} < ${goalRatio.toFixed(2)}` : '',
    goalUs !== undefined && sluice.deltaUs! > goalUs
      ? `${us(sluice.deltaUs!)} > +${goalUs} µs`
      : '',
  ].filter(Boolean);
  return {
    case: title,
    sluice: `${sluice.ratio!.toFixed(2)}, ${us(sluice.deltaUs!)}/req (CPU ratio ${sluice.cpuRatio!.toFixed(2)})`,
    peer: `${best.limiter} ${best.ratio!.toFixed(2)}, ${us(best.deltaUs!)}`,
    goal,
    verdict: met(gaps.length === 0, gaps.join(', ')),
  };
}

function redisSummary(redis: RedisReport | undefined): SummaryRow[] {
  if (redis === undefined)
    return [
      {
        case: 'Redis decisions/s and memory',
        sluice: 'not run',
        peer: '-',
        goal: '-',
        verdict: '-',
      },
    ];
  const t = TARGETS.redis;
  const find = (sluice: boolean, auto: boolean) =>
    redis.throughput.find(
      (r) =>
        r.sluice === sluice && r.autoPipelining === auto && !/iovalkey|node-redis/.test(r.label),
    );
  const [plain, auto] = [find(true, false), find(true, true)];
  const peer = (a: boolean) => `${find(false, a)?.label ?? '-'} ${k0(find(false, a)?.rate ?? 0)}`;
  const rows: SummaryRow[] = [];
  const [ceiling, noop] = [redis.ceiling.rate, redis.noopCeiling.rate];
  if (plain !== undefined) {
    const [ofCeiling, ofNoop] = [plain.rate / ceiling, plain.rate / noop];
    rows.push({
      case: `Redis decisions/s, one client, ${redis.config.inFlight} in flight`,
      sluice: `${k0(plain.rate)}: ${pct(ofCeiling)} of EVALSHA of sluice's GCRA script (${k0(ceiling)}), ${pct(ofNoop)} of EVALSHA of 'return 1' (${k0(noop)})`,
      peer: peer(false),
      goal: `>= ${pct(t.ofCeiling)} of \`redis-benchmark -P 16\` EVALSHA in the same run`,
      verdict: met(
        ofCeiling >= t.ofCeiling && ofNoop >= t.ofCeiling,
        `${pct(Math.min(ofCeiling, ofNoop))} of a ceiling`,
      ),
    });
  }
  if (plain !== undefined && auto !== undefined) {
    const ofPlain = auto.rate / plain.rate;
    rows.push({
      case: 'the same with ioredis `enableAutoPipelining`',
      sluice: `${k0(auto.rate)} (${ofPlain.toFixed(2)}x without)`,
      peer: peer(true),
      goal: `no slower than without (>= ${t.autoOfPlain}x: the same path, and the noise between medians)`,
      verdict: met(ofPlain >= t.autoOfPlain, `${ofPlain.toFixed(2)}x`),
    });
  }
  if (redis.peerMemory !== undefined) {
    const m = redis.peerMemory;
    const { sluice, best, toleranceB, verdict } = judgePeerMemory(m);
    rows.push({
      case: `Redis \`used_memory\` per GCRA key (${count(m.keys)} keys, \`INFO memory\` delta)`,
      sluice: `${sluice.bytesPerKey.toFixed(1)} B (\`${sluice.exampleKey}\`)`,
      peer: `${best.label} ${best.bytesPerKey.toFixed(1)} B (\`${best.exampleKey}\`)`,
      goal: `<= the best peer (+${toleranceB} B of measurement spread)`,
      verdict: met(verdict === 'PASS', 'over the best peer'),
    });
  }
  return rows;
}

function coreSummary(core: CoreReport | undefined): SummaryRow[] {
  const rows = core?.peers?.rows ?? [];
  const one = (r: (typeof rows)[number] | undefined, title: string, goal: string): SummaryRow => {
    if (r === undefined) return { case: title, sluice: 'not run', peer: '-', goal, verdict: '-' };
    const [sluice, ...peers] = r.figures;
    const better = (a: number, b: number) => (r.kind === 'rate' ? a > b : a < b);
    const best = peers.reduce((a, b) => (better(b.median, a.median) ? b : a));
    const j = judgePeer(r, rows);
    return {
      case: title,
      sluice: peerValue(r.kind, sluice!.median),
      peer: `${best.name} ${peerValue(r.kind, best.median)}`,
      goal,
      verdict: met(j.verdict === 'PASS', j.gap),
    };
  };
  const many = rows.find((r) => r.kind === 'rate' && r.keys > 1);
  const heap = rows.filter((r) => r.kind === 'heap').at(-1);
  const t = TARGETS.core.peers;
  return [
    one(
      rows.find((r) => r.kind === 'rate' && r.keys === 1),
      'awaited `RateLimiter.consume`, memory, 1 key',
      'ahead of every peer',
    ),
    one(many, `the same, ${count(many?.keys ?? 0)} keys`, `>= ${t.manyKeys / 1e6} M/s`),
    one(
      heap,
      `heap per key with its key text (${count(heap?.keys ?? 0)} keys)`,
      `<= ${t.heapBytes} B`,
    ),
  ];
}

/** The summary rows: the Redis HTTP cases, the Redis path, the memory store's awaited decision. */
export function summaryRows(input: {
  core?: CoreReport;
  redis?: RedisReport;
  http?: HttpReport;
}): SummaryRow[] {
  const c = (id: string) => input.http?.cases.find((x) => x.id === id);
  return [
    httpSummary(c('fastify-redis'), 'Fastify, Redis, allow', 'fastify-redis'),
    httpSummary(c('koa-redis'), 'Koa, Redis, allow', 'koa-redis'),
    ...redisSummary(input.redis),
    ...coreSummary(input.core),
  ];
}
