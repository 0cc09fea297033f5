// The targets table's and summary's rows: each row's text is bench/targets.json's (mustache), the
// verdicts verdicts.ts's; this file only formats the figures the templates name.
import Mustache from 'mustache';
import { bytes, count, kps, mps, ns, pct, ratio, rounds, us } from './format.js';
import type { CoreReport, HttpCase, PeerRow, RedisReport, ReportInput } from './types.js';
import {
  flatness,
  httpSides,
  ioredisRow,
  judgeHttp,
  judgeKeyBytes,
  judgePeer,
  judgePeerMemory,
  judgeRedisRow,
  pass,
  TARGETS,
} from './verdicts.js';

type TargetRow = Record<'target' | 'measured' | 'floor' | 'aim' | 'verdict' | 'gap', string>;

const say = (template: string, view: object) =>
  Mustache.render(template, view, {}, { escape: String });

/** Row `name` of bench/targets.json's `table` (`rows` or `summary`): each cell's text filled with `view`. */
function fromText<R>(table: 'rows' | 'summary', name: string, view: object): R {
  const t = TARGETS[table][name];
  if (t === undefined) throw new Error(`bench/targets.json has no ${table} text ${name}`);
  const cell = (text: string | string[]) =>
    typeof text === 'string'
      ? say(text, view)
      : text
          .map((g) => say(g, view))
          .filter((g) => g !== '')
          .join('; ') || '-';
  return Object.fromEntries(Object.entries(t).map(([c, text]) => [c, cell(text)])) as R;
}
/** A targets row; its shown gaps joined. */
const row = (name: string, view: object) => fromText<TargetRow>('rows', name, view);

/** `xs`, each item marked `last` or not (a template's separator goes between items). */
const list = <T extends object>(xs: T[]) => xs.map((x, i) => ({ ...x, last: i === xs.length - 1 }));
const texts = (xs: string[]) => list(xs.map((text) => ({ text })));
const met = (ok: boolean) => (ok ? 'met' : 'not met');

/** A part that did not run. */
const notRun = (target: string): TargetRow => ({
  target,
  measured: 'not run',
  floor: '-',
  aim: '-',
  verdict: 'NOT MEASURED',
  gap: '-',
});

/** One HTTP case as its targets row and its summary row show it (`ran: false`: not measured). */
function httpView(title: string, id: string, c: HttpCase | undefined) {
  const { floor, aim } = TARGETS.http[id]!;
  const view = {
    title,
    ran: c !== undefined,
    floor: floor?.toFixed(2),
    aimRatio: aim.ratio.toFixed(2),
    aimUs: aim.us,
  };
  if (c === undefined) return view;
  const { base, sluice, peers } = httpSides(c);
  const j = judgeHttp(c);
  const s = sluice.ratio!;
  const ratioShort = s < aim.ratio;
  const usOver =
    aim.us !== undefined && sluice.deltaUs! > aim.us && (sluice.deltaUs! - aim.us).toFixed(1);
  const side = (r: HttpCase['rows'][number]) => ({
    limiter: r.limiter,
    ratio: r.ratio!.toFixed(2),
    us: us(r.deltaUs!),
    cpuRatio: r.cpuRatio!.toFixed(2),
  });
  return {
    ...view,
    ...j,
    ...side(sluice),
    sides: list([sluice, ...peers].map(side)),
    best: side(peers.reduce((a, b) => (b.ratio! > a.ratio! ? b : a))),
    behind: list(peers.filter((p) => p.ratio! >= s).map(side)),
    aimMet: met(j.aimMet),
    floorShort: floor !== undefined && s < floor,
    short: floor === undefined ? '' : pct(1 - s / floor),
    ratioShort,
    usOver,
    aimGap: ratioShort || usOver !== false,
    ok: !ratioShort && !usOver,
    notBusy: base.busy < 0.8,
    busy: pct(base.busy),
  };
}

function httpTargets(http: ReportInput['http'], ran: boolean): TargetRow[] {
  const listed = Object.entries(TARGETS.http).filter(([, t]) => t.row !== undefined);
  return listed.map(([id, { row: title }]) => {
    const c = http?.cases.find((x) => x.id === id);
    if (c !== undefined) return row('http', httpView(title!, id, c));
    const why = !ran
      ? 'bench:http did not run'
      : http === undefined
        ? 'bench:http wrote no JSON (see bench/results/http.txt)'
        : 'not selected (--only)';
    return { ...notRun(title!), measured: 'not measured', gap: why };
  });
}

function coreTargets(core: CoreReport | undefined): TargetRow[] {
  if (core === undefined) return [notRun('core (memory store) rows')];
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
    const find = (label: string) =>
      core.throughput.find((x) => x.label === `${label}: GCRA, ${keys}`);
    const store = find('MemoryStore (store.consume, its own API)');
    const limiter = find('RateLimiter.consume (awaited)');
    if (store === undefined) continue;
    const r = store.sluice / store.rlf;
    const ok = r >= t.vsRlf;
    rows.push(
      row('coreKeys', {
        keys,
        sluice: mps(store.sluice),
        rlf: mps(store.rlf),
        ratio: ratio(r),
        vsRlf: t.vsRlf,
        aim: mps(aim),
        pass: pass(ok),
        aimMet: met(store.sluice >= aim),
        ok,
        short: pct(1 - r / t.vsRlf),
        aimOk: store.sluice >= aim,
        aimPct: pct(store.sluice / aim),
        limiter: limiter && {
          sluice: mps(limiter.sluice),
          rlf: mps(limiter.rlf),
          ratio: ratio(limiter.sluice / limiter.rlf),
          awaitFloor: floor && {
            rate: mps(floor.sluice),
            ofRlf: ratio(floor.sluice / limiter.rlf),
          },
        },
      }),
    );
  }
  const judged = core.throughput.filter((r) => r.judged);
  const failing = judged.filter((r) => r.sluice / r.rlf < t.vsRlf);
  rows.push(
    row('coreEvery', {
      passing: judged.length - failing.length,
      judged: judged.length,
      vsRlf: t.vsRlf,
      pass: pass(failing.length === 0),
      failing: list(failing.map((r) => ({ label: r.label, ratio: ratio(r.sluice / r.rlf) }))),
    }),
  );
  const heap = core.heap.find((h) => h.name === 'sluice GCRA');
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  if (heap !== undefined) {
    const ok = heap.overhead <= t.heapBytes;
    rows.push(
      row('coreHeap', {
        keys: count(heap.keys),
        overhead: bytes(heap.overhead),
        rlf: rlfHeap && {
          overhead: bytes(rlfHeap.overhead),
          ratio: ratio(heap.overhead / rlfHeap.overhead),
        },
        heapBytes: t.heapBytes,
        pass: pass(ok),
        ok,
        over: bytes(heap.overhead - t.heapBytes),
      }),
    );
  }
  rows.push(...coreMoreTargets(core));
  return rows;
}

/** The figures of a flatness row: first and last size, ratios, verdict. */
export function flatView<R extends { keys: number; sluice: number; rlf: number }>(
  f: ReturnType<typeof flatness<R>>,
  min: number,
  rate: (x: number) => string,
) {
  const at = (r: R) => ({
    keys: count(r.keys),
    rate: rate(r.sluice),
    ns: ns(r.sluice),
    storeNs: 'store' in r ? ns(r.store as number) : '',
  });
  return {
    first: at(f.first),
    last: at(f.last),
    ratios: Object.fromEntries(Object.entries(f.ratios).map(([k, v]) => [k, v.toFixed(2)])),
    min,
    verdict: f.verdict,
    ok: f.verdict === 'PASS',
  };
}

/** The scale rows (heap, flatness) and the every-peer rows of the core targets. */
function coreMoreTargets(core: CoreReport): TargetRow[] {
  const t = TARGETS.core;
  const rows: TargetRow[] = [];
  if (core.scale !== undefined) {
    const s = core.scale;
    const worst = Math.max(...s.rows.map((r) => r.heapSluice));
    rows.push(
      row('coreScaleHeap', {
        keys: s.rows.map((r) => count(r.keys)).join(' / '),
        heaps: s.rows.map((r) => bytes(r.heapSluice)).join(' / '),
        heapBytes: t.heapBytes,
        pass: pass(worst <= t.heapBytes),
        ok: worst <= t.heapBytes,
        worst: bytes(worst),
      }),
    );
    const f = flatness(s.rows, t.flat, 'store');
    rows.push(row('coreFlat', flatView(f, t.flat, mps)));
  }
  const peers = core.peers?.rows ?? [];
  for (const view of peers.map((r) => peerView(r, peers)))
    if (view.verdict !== '(info)') rows.push(row('corePeer', view));
  return rows;
}

/** One every-peer row as its section, its targets row and the summary show it. */
export function peerView(r: PeerRow, rows: PeerRow[]) {
  const value = (x: number) => (r.kind === 'rate' ? mps(x) : bytes(x));
  const [sluice, ...peers] = r.figures as [PeerRow['figures'][0], ...PeerRow['figures']];
  const better = (a: number, b: number) => (r.kind === 'rate' ? a > b : a < b);
  const best = peers.reduce((a, b) => (better(b.median, a.median) ? b : a));
  const j = judgePeer(r, rows);
  const figures = r.figures.map((f) => ({
    name: f.name,
    value: value(f.median),
    rounds: r.kind === 'rate' ? rounds(f.rounds, 1e6, 2) : rounds(f.rounds, 1, 1),
  }));
  return {
    ...j,
    target: j.target ?? '-',
    label: r.label,
    ran: true,
    figures: list(figures),
    sluice: value(sluice.median),
    best: `${best.name} ${value(best.median)}`,
    ok: j.verdict === 'PASS',
  };
}

/** Redis used_memory per subject, every peer: its section, its targets row and the summary. */
export function peerMemoryView(m: NonNullable<RedisReport['peerMemory']>) {
  const j = judgePeerMemory(m);
  const at = (r: (typeof m.rows)[number]) => ({
    ...r,
    bytes: bytes(r.bytesPerKey),
    vsSluice: r.sluice ? '-' : ratio(r.bytesPerKey / j.sluice.bytesPerKey),
    dbsize: count(r.dbsize),
    keysPerSubject: r.keysPerSubject.toFixed(2),
    fill: r.fillSeconds.toFixed(1),
    rounds: rounds(r.rounds, 1, 1),
  });
  return {
    ...m,
    keys: count(m.keys),
    rows: m.rows.map(at),
    sluice: at(j.sluice),
    best: at(j.best),
    peers: list(j.peers.map(at)),
    spread: list(j.peers.filter((p) => p.keysPerSubject !== 1).map(at)),
    over: bytes(j.sluice.bytesPerKey - j.best.bytesPerKey),
    toleranceB: j.toleranceB,
    verdict: j.verdict,
    ok: j.verdict === 'PASS',
  };
}

function redisTargets(redis: RedisReport | undefined): TargetRow[] {
  if (redis === undefined) return [notRun('Redis rows')];
  const t = TARGETS.redis;
  const rows: TargetRow[] = [];
  const rlf = (auto: boolean) => ioredisRow(redis, false, auto);
  for (const r of redis.throughput.filter((x) => x.sluice)) {
    const [rlfAuto, rlfSame] = [rlf(true), rlf(r.autoPipelining)];
    if (rlfAuto === undefined || rlfSame === undefined) continue;
    const j = judgeRedisRow(redis, r);
    rows.push(
      row('redisRate', {
        inFlight: redis.config.inFlight,
        auto: r.autoPipelining,
        rate: kps(r.rate),
        rlf: kps(rlfSame.rate),
        rlfAuto: kps(rlfAuto.rate),
        vsRlfAuto: ratio(j.vsRlfAuto),
        ofCeiling: pct(j.ofCeiling),
        ceiling: kps(redis.ceiling.rate),
        noop: kps(redis.noopCeiling.rate),
        ofPlain: j.ofPlain !== null && ratio(j.ofPlain),
        t: { ...t, ofCeiling: pct(t.ofCeiling) },
        pass: pass(!j.failed),
        gaps: texts(j.checks.filter((c) => !c.ok).map((c) => c.gap)),
      }),
    );
  }
  const sluiceMem = redis.memory.filter((m) => m.sluice);
  if (sluiceMem.length > 0) {
    const most = Math.max(...sluiceMem.map((m) => m.bytes));
    const worst = judgeKeyBytes(most);
    rows.push(
      row('redisKeyBytes', {
        sluice: list(sluiceMem),
        peers: list(redis.memory.filter((m) => !m.sluice)),
        t: t.keyBytes,
        pass: worst.pass,
        aimMet: met(worst.aimMet),
        aimOk: worst.aimMet,
        over: most - t.keyBytes.aim,
      }),
    );
  }
  if (redis.peerMemory !== undefined)
    rows.push(row('redisUsedMemory', peerMemoryView(redis.peerMemory)));
  const s = redis.scale;
  if (s !== undefined)
    rows.push(
      row('redisFlat', flatView(flatness(s.rows, t.flat), t.flat, kps)),
      row('redisScaleMemory', {
        keys: s.rows.map((r) => count(r.keys)).join(' / '),
        sluice: s.rows.map((r) => bytes(r.memSluice)).join(' / '),
        rlf: s.rows.map((r) => bytes(r.memRlf)).join(' / '),
      }),
    );
  return rows;
}
/** case, sluice, best peer in the same run, goal, verdict: the summary of both pages. */
type SummaryRow = Record<'case' | 'sluice' | 'peer' | 'goal' | 'verdict', string>;

const summary = (name: string, view: object) => fromText<SummaryRow>('summary', name, view);

const k0 = (x: number) => `${(x / 1e3).toFixed(0)} k/s`;

function redisSummary(redis: RedisReport | undefined): SummaryRow[] {
  if (redis === undefined) return [summary('redisNotRun', {})];
  const t = TARGETS.redis;
  const find = (sluice: boolean, auto: boolean) => ioredisRow(redis, sluice, auto);
  const [plain, auto] = [find(true, false), find(true, true)];
  const peer = (a: boolean) => `${find(false, a)?.label ?? '-'} ${k0(find(false, a)?.rate ?? 0)}`;
  const rows: SummaryRow[] = [];
  const [ceiling, noop] = [redis.ceiling.rate, redis.noopCeiling.rate];
  if (plain !== undefined) {
    const [ofCeiling, ofNoop] = [plain.rate / ceiling, plain.rate / noop];
    rows.push(
      summary('redisRate', {
        inFlight: redis.config.inFlight,
        rate: k0(plain.rate),
        ofCeiling: pct(ofCeiling),
        ceiling: k0(ceiling),
        ofNoop: pct(ofNoop),
        noop: k0(noop),
        peer: peer(false),
        min: pct(t.ofCeiling),
        ok: ofCeiling >= t.ofCeiling && ofNoop >= t.ofCeiling,
        worst: pct(Math.min(ofCeiling, ofNoop)),
      }),
    );
  }
  if (plain !== undefined && auto !== undefined) {
    const ofPlain = auto.rate / plain.rate;
    rows.push(
      summary('redisAuto', {
        rate: k0(auto.rate),
        ofPlain: ofPlain.toFixed(2),
        peer: peer(true),
        min: t.autoOfPlain,
        ok: ofPlain >= t.autoOfPlain,
      }),
    );
  }
  if (redis.peerMemory !== undefined)
    rows.push(summary('redisUsedMemory', peerMemoryView(redis.peerMemory)));
  return rows;
}

function coreSummary(core: CoreReport | undefined): SummaryRow[] {
  const rows = core?.peers?.rows ?? [];
  const t = TARGETS.core.peers;
  const one = (name: string, r: (typeof rows)[number] | undefined) => {
    const view = { keys: count(r?.keys ?? 0), manyKeys: t.manyKeys / 1e6, heapBytes: t.heapBytes };
    return summary(
      name,
      r === undefined ? { ...view, ran: false } : { ...view, ...peerView(r, rows) },
    );
  };
  const rates = rows.filter((r) => r.kind === 'rate');
  const [oneKey, manyKeys] = [rates.find((r) => r.keys === 1), rates.find((r) => r.keys > 1)];
  const heap = rows.filter((r) => r.kind === 'heap').at(-1);
  return [one('coreOneKey', oneKey), one('coreManyKeys', manyKeys), one('coreHeap', heap)];
}

/** The summary rows: the Redis HTTP cases, the Redis path, the memory store's awaited decision. */
export function summaryRows(input: ReportInput): SummaryRow[] {
  const c = (id: string) => input.http?.cases.find((x) => x.id === id);
  return [
    summary('http', httpView('Fastify, Redis, allow', 'fastify-redis', c('fastify-redis'))),
    summary('http', httpView('Koa, Redis, allow', 'koa-redis', c('koa-redis'))),
    ...redisSummary(input.redis),
    ...coreSummary(input.core),
  ];
}

/** The targets table's rows: the HTTP cases, the memory store, Redis. */
export function targetRows({ run, http, core, redis }: ReportInput): TargetRow[] {
  const ran = run.parts.some((x) => x.name === 'http');
  return [...httpTargets(http, ran), ...coreTargets(core), ...redisTargets(redis)];
}
