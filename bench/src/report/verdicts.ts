// The one place a verdict is decided: each figure against bench/targets.json (floor: must; aim);
// the parts take their exit code from it, the pages their verdict columns.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kps, mps, pct } from './format.js';
import type { CoreReport, HttpCase, HttpRow, PeerRow, RedisReport, StoresReport } from './types.js';

interface HttpTarget {
  /** Its row title in the targets table (none: not listed). */
  row?: string;
  floor?: number;
  aim: { ratio: number; us?: number };
}
export const TARGETS = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../targets.json', import.meta.url)), 'utf8'),
) as {
  http: Record<string, HttpTarget>;
  core: {
    vsRlf: number;
    aim: { '1 key': number; many: number };
    heapBytes: number;
    flat: number;
    peers: { manyKeys: number; heapBytes: number };
  };
  redis: {
    vsRlfAuto: number;
    ofCeiling: number;
    autoOfPlain: number;
    ofIoredis: number;
    /** Valkey GLIDE's own floor of ofIoredis (its Rust core behind a socket: see targets.json). */
    glideOfIoredis: number;
    keyBytes: { floor: number; aim: number };
    usedMemoryToleranceB: number;
    flat: number;
  };
  /** Floors (and aims) of sluice's own stores, decisions/s. */
  stores: Record<'postgres' | 'sqlite', { floor: number; aim?: number }>;
  /** Each targets and summary row's text: mustache templates of its cells (targets.ts). */
  rows: Record<string, Record<string, string | string[]>>;
  summary: Record<string, Record<string, string | string[]>>;
};

export type Pass = 'PASS' | 'FAIL';
export const pass = (ok: boolean): Pass => (ok ? 'PASS' : 'FAIL');

/** The case's target, its unlimited row, sluice's row and its peers' rows. */
export function httpSides(c: HttpCase) {
  const target = TARGETS.http[c.id];
  if (target === undefined) throw new Error(`bench/targets.json has no http target ${c.id}`);
  return {
    target,
    base: c.rows.find((r) => r.role === 'unlimited')!,
    sluice: c.rows.find((r) => r.role === 'sluice')!,
    peers: c.rows.filter((r) => r.role === 'peer'),
  };
}

/** An HTTP case: floor and ahead of every peer, on the req/s ratio and on the CPU ratio; the aim. */
export function judgeHttp(c: HttpCase) {
  const { target, sluice, peers } = httpSides(c);
  const judged = (x: (r: HttpRow) => number) =>
    (target.floor === undefined || x(sluice) >= target.floor) &&
    peers.every((p) => x(sluice) > x(p));
  const { ratio, us: aimUs } = target.aim;
  return {
    verdict: pass(judged((r) => r.ratio!)),
    cpuVerdict: pass(judged((r) => r.cpuRatio!)),
    aimMet: sluice.ratio! >= ratio && (aimUs === undefined || sluice.deltaUs! <= aimUs),
  };
}

/** A memory-store row: sluice / RLF at least `vsRlf` when judged. */
export const judgeCoreRow = (r: CoreReport['throughput'][number]) =>
  r.judged ? pass(r.sluice / r.rlf >= TARGETS.core.vsRlf) : '(info)';

/** Heap bytes per key of sluice's GCRA store (its overhead) at most `heapBytes`. */
export const judgeHeap = (h: CoreReport['heap'][number]) =>
  h.name === 'sluice GCRA' ? pass(h.overhead <= TARGETS.core.heapBytes) : '(info)';

/** Decisions/s at the most keys / at the fewest, per subject, and whether sluice's is flat. */
export function flatness<R extends { keys: number; sluice: number; rlf: number }>(
  rows: R[],
  min: number,
  ...more: (keyof R)[]
) {
  const [first, last] = [rows[0]!, rows.at(-1)!];
  const of = (k: keyof R) => (last[k] as number) / (first[k] as number);
  const ratios = Object.fromEntries(['sluice', 'rlf', ...more].map((k) => [k, of(k as keyof R)]));
  return { first, last, ratios, verdict: pass(ratios.sluice! >= min) };
}

/** An every-peer row: 1 key ahead of every peer; many keys a rate; the largest heap row a size. */
export function judgePeer(r: PeerRow, rows: PeerRow[]) {
  const [sluice, ...peers] = r.figures.map((f) => f.median) as [number, ...number[]];
  const names = r.figures.slice(1).map((f) => f.name);
  const heaps = rows.filter((x) => x.kind === 'heap');
  const t = TARGETS.core.peers;
  if (r.kind === 'rate' && r.keys === 1) {
    const behind = peers.map((p, i) => [names[i]!, p] as const).filter(([, p]) => p >= sluice);
    return {
      target: 'ahead of every peer',
      verdict: pass(behind.length === 0),
      gap: behind.map(([n, p]) => `${n} ${mps(p)}: sluice at ${pct(sluice / p)}`).join('; ') || '-',
    };
  }
  if (r.kind === 'rate')
    return {
      target: `>= ${mps(t.manyKeys)}`,
      verdict: pass(sluice >= t.manyKeys),
      gap: sluice >= t.manyKeys ? '-' : `${pct(sluice / t.manyKeys)} of ${mps(t.manyKeys)}`,
    };
  if (r === heaps.at(-1))
    return {
      target: `<= ${t.heapBytes} B`,
      verdict: pass(sluice <= t.heapBytes),
      gap: sluice <= t.heapBytes ? '-' : `${(sluice - t.heapBytes).toFixed(1)} B over`,
    };
  return { target: undefined, verdict: '(info)' as const, gap: '-' };
}

/** The client a Redis throughput row runs on, from its label. */
export const redisClient = (label: string) =>
  /, (iovalkey|node-redis 6|valkey-glide)/.exec(label)?.[1] ?? 'ioredis';

/** The throughput row on ioredis of sluice (or RLF), auto-pipelined or not. */
export const ioredisRow = (redis: RedisReport, sluice: boolean, auto: boolean) =>
  redis.throughput.find(
    (x) => x.sluice === sluice && x.autoPipelining === auto && redisClient(x.label) === 'ioredis',
  );

/** A Redis row against RLF auto-pipelined, the ceiling and itself without auto-pipelining. */
export function judgeRedisRow(redis: RedisReport, r: RedisReport['throughput'][number]) {
  const t = TARGETS.redis;
  const rlfAuto = ioredisRow(redis, false, true)?.rate ?? Number.NaN;
  const plain = ioredisRow(redis, true, false);
  const vsRlfAuto = r.rate / rlfAuto;
  const ofCeiling = r.rate / redis.ceiling.rate;
  const ofPlain = r.sluice && r.autoPipelining && plain ? r.rate / plain.rate : null;
  const checks: { what: string; ok: boolean; gap: string }[] = [];
  const client = redisClient(r.label);
  if (client !== 'ioredis') {
    const same = ioredisRow(redis, true, r.autoPipelining);
    const of = same === undefined ? Number.NaN : r.rate / same.rate;
    const mode = r.autoPipelining ? 'auto-pipelined' : 'plain';
    const floor = client === 'valkey-glide' ? t.glideOfIoredis : t.ofIoredis;
    checks.push({
      what: `${of.toFixed(2)}x sluice on ioredis ${mode} (>= ${floor}x)`,
      ok: of >= floor,
      gap: '',
    });
  } else if (r.sluice) {
    checks.push(
      {
        what: `>= ${t.vsRlfAuto}x RLF auto-pipelined`,
        ok: vsRlfAuto >= t.vsRlfAuto,
        gap: `${vsRlfAuto.toFixed(2)}x of RLF, ${pct(1 - vsRlfAuto / t.vsRlfAuto)} short`,
      },
      {
        what: `>= ${pct(t.ofCeiling)} of the ceiling`,
        ok: ofCeiling >= t.ofCeiling,
        gap: `${pct(ofCeiling)} of the ceiling; needs ${kps(t.ofCeiling * redis.ceiling.rate)}, ${kps(t.ofCeiling * redis.ceiling.rate - r.rate)} more`,
      },
    );
    if (ofPlain !== null)
      checks.push({
        what: `no slower than without (>= ${t.autoOfPlain}x)`,
        ok: ofPlain >= t.autoOfPlain,
        gap: `${ofPlain.toFixed(2)}x of sluice without auto-pipelining (${kps(r.rate)} vs ${kps(plain!.rate)})`,
      });
  }
  const verdict =
    checks.length === 0 ? '(info)' : checks.map((c) => `${pass(c.ok)} ${c.what}`).join('; ');
  return { vsRlfAuto, ofCeiling, ofPlain, checks, verdict, failed: checks.some((c) => !c.ok) };
}

/** MEMORY USAGE of one decision of sluice: at most the floor; the aim. */
export function judgeKeyBytes(bytes: number) {
  const { floor, aim } = TARGETS.redis.keyBytes;
  return { pass: pass(bytes <= floor), aimMet: bytes <= aim };
}

/** used_memory per subject: sluice at most the best peer's + the tolerance. */
export function judgePeerMemory(m: NonNullable<RedisReport['peerMemory']>) {
  const [sluice, ...peers] = m.rows as [(typeof m.rows)[0], ...typeof m.rows];
  const best = peers.reduce((a, b) => (b.bytesPerKey < a.bytesPerKey ? b : a));
  const toleranceB = TARGETS.redis.usedMemoryToleranceB;
  const verdict = pass(sluice.bytesPerKey <= best.bytesPerKey + toleranceB);
  return { sluice, peers, best, toleranceB, verdict };
}

/** Whether the core part (or its every-peer half) failed a floor. */
export function coreFailed(core: CoreReport): boolean {
  const peers = core.peers?.rows ?? [];
  return (
    core.throughput.some((r) => judgeCoreRow(r) === 'FAIL') ||
    core.heap.some((h) => judgeHeap(h) === 'FAIL') ||
    (core.scale !== undefined && flatness(core.scale.rows, TARGETS.core.flat).verdict === 'FAIL') ||
    peers.some((r) => judgePeer(r, peers).verdict === 'FAIL') ||
    (core.ai !== undefined && core.ai.estimateP50Ns > ESTIMATE_TARGET_NS)
  );
}

/** bench:core's `estimateTokens` of a 4 KB body (measure/ai.ts) is held to this p50, in ns. */
export const ESTIMATE_TARGET_NS = 5000;

/** Whether the Redis part failed a floor. */
export function redisFailed(redis: RedisReport): boolean {
  return (
    redis.throughput.some((r) => judgeRedisRow(redis, r).failed) ||
    redis.memory.some((m) => m.sluice && judgeKeyBytes(m.bytes).pass === 'FAIL') ||
    (redis.scale !== undefined &&
      flatness(redis.scale.rows, TARGETS.redis.flat).verdict === 'FAIL') ||
    (redis.peerMemory !== undefined && judgePeerMemory(redis.peerMemory).verdict === 'FAIL')
  );
}

/** A store row: sluice's own Postgres and SQLite stores at least their floor. */
export function judgeStore(r: StoresReport['rows'][number]) {
  const t = r.store === 'redis' ? undefined : TARGETS.stores[r.store];
  if (!r.judged || t === undefined) return { target: '-', verdict: '(info)' as const };
  const aim = t.aim === undefined ? '' : ` (aim ${t.aim / 1000} k/s)`;
  return {
    target: `>= ${t.floor / 1000} k/s${aim}`,
    verdict: pass(r.decisionsPerSecond >= t.floor),
  };
}
