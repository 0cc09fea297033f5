/**
 * The summary table of docs/benchmarks.md (and of bench/results.md): the Redis path and the
 * memory store's awaited decision, each as sluice | the best peer in the same run | goal |
 * verdict, from this run's JSON. The full tables, every round and every peer, are in
 * bench/results.md.
 */

import type { PeerRow } from '../measure/core-peers.js';
import type { CoreReport } from './core-part.js';
import type { HttpCase, HttpReport } from './http-part.js';
import type { RedisReport } from './redis-part.js';

/** case, sluice, best peer in the same run, goal, verdict. */
export type SummaryRow = [string, string, string, string, string];

const kps = (x: number) => `${(x / 1e3).toFixed(0)} k/s`;
const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
const us = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)} µs`;
const verdict = (met: boolean, gap: string) => (met ? 'met' : `not met: ${gap}`);

/** An HTTP Redis case: req/s ratio and Δµs of sluice, and of the peer with the best ratio. */
function httpRow(c: HttpCase | undefined, title: string, goalRatio: number, goalUs?: number) {
  const goal = `>= ${goalRatio.toFixed(2)}${goalUs === undefined ? '' : `, <= +${goalUs} µs`}`;
  const sluice = c?.rows.find((r) => r.role === 'sluice');
  if (c === undefined || sluice === undefined) return [title, 'not run', '-', goal, '-'];
  const peers = c.rows.filter((r) => r.role === 'peer');
  const best = peers.reduce((a, b) => ((b.ratio ?? 0) > (a.ratio ?? 0) ? b : a), peers[0]!);
  const ratio = sluice.ratio ?? 0;
  const delta = sluice.deltaUs ?? 0;
  const gaps = [
    ratio < goalRatio ? `ratio ${ratio.toFixed(2)} < ${goalRatio.toFixed(2)}` : '',
    goalUs !== undefined && delta > goalUs ? `${us(delta)} > +${goalUs} µs` : '',
  ].filter(Boolean);
  return [
    title,
    `${ratio.toFixed(2)}, ${us(delta)}/req (CPU ratio ${(sluice.cpuRatio ?? 0).toFixed(2)})`,
    `${best.limiter} ${(best.ratio ?? 0).toFixed(2)}, ${us(best.deltaUs ?? 0)}`,
    goal,
    verdict(gaps.length === 0, gaps.join(', ')),
  ];
}

function redisRows(redis: RedisReport | undefined): SummaryRow[] {
  if (redis === undefined)
    return [['Redis decisions/s and memory', 'not run', '-', '-', '-'] as SummaryRow];
  const plain = redis.throughput.find((r) => r.sluice && !r.autoPipelining);
  const auto = redis.throughput.find((r) => r.sluice && r.autoPipelining);
  const peer = (autoPipelining: boolean) =>
    redis.throughput.find((r) => !r.sluice && r.autoPipelining === autoPipelining);
  const rows: SummaryRow[] = [];
  const ceiling = redis.ceiling.rate;
  const noop = redis.noopCeiling.rate;
  if (plain !== undefined) {
    const ofCeiling = plain.rate / ceiling;
    const ofNoop = plain.rate / noop;
    rows.push([
      'Redis decisions/s, one client, 256 in flight',
      `${kps(plain.rate)}: ${(ofCeiling * 100).toFixed(0)}% of EVALSHA of sluice's GCRA script (${kps(ceiling)}), ${(ofNoop * 100).toFixed(0)}% of EVALSHA of 'return 1' (${kps(noop)})`,
      `${peer(false)?.label ?? '-'} ${kps(peer(false)?.rate ?? 0)}`,
      '>= 70% of `redis-benchmark -P 16` EVALSHA in the same run',
      verdict(
        ofCeiling >= 0.7 && ofNoop >= 0.7,
        `${(Math.min(ofCeiling, ofNoop) * 100).toFixed(0)}% of a ceiling`,
      ),
    ]);
  }
  if (plain !== undefined && auto !== undefined) {
    const ofPlain = auto.rate / plain.rate;
    rows.push([
      'the same with ioredis `enableAutoPipelining`',
      `${kps(auto.rate)} (${ofPlain.toFixed(2)}x without)`,
      `${peer(true)?.label ?? '-'} ${kps(peer(true)?.rate ?? 0)}`,
      `no slower than without (>= ${redis.config.targets.autoOfPlain}x: the same path, and the noise between medians)`,
      verdict(ofPlain >= redis.config.targets.autoOfPlain, `${ofPlain.toFixed(2)}x`),
    ]);
  }
  const mem = redis.peerMemory;
  if (mem !== undefined) {
    const sluice = mem.rows.find((r) => r.sluice);
    const peers = mem.rows.filter((r) => !r.sluice);
    const best = peers.reduce((a, b) => (b.bytesPerKey < a.bytesPerKey ? b : a), peers[0]!);
    rows.push([
      `Redis \`used_memory\` per GCRA key (${mem.keys.toLocaleString('en-US')} keys, \`INFO memory\` delta)`,
      `${sluice?.bytesPerKey.toFixed(1)} B (\`${sluice?.exampleKey}\`)`,
      `${best.label} ${best.bytesPerKey.toFixed(1)} B (\`${best.exampleKey}\`)`,
      `<= the best peer (+${mem.toleranceB} B of measurement spread)`,
      verdict(mem.verdict === 'PASS', 'over the best peer'),
    ]);
  }
  return rows;
}

/** A row of the every-peer core table: sluice and the best peer (highest rate, least heap). */
function coreRow(row: PeerRow | undefined, title: string, goal: string): SummaryRow {
  if (row === undefined) return [title, 'not run', '-', goal, '-'];
  const [sluice, ...peers] = row.figures;
  const better = (a: number, b: number) => (row.kind === 'rate' ? a > b : a < b);
  const best = peers.reduce((a, b) => (better(b.median, a.median) ? b : a), peers[0]!);
  const fmt = (x: number) => (row.kind === 'rate' ? mps(x) : `${x.toFixed(1)} B`);
  return [
    title,
    fmt(sluice!.median),
    `${best.name} ${fmt(best.median)}`,
    goal,
    verdict(row.verdict === 'PASS', row.gap),
  ];
}

function coreRows(core: CoreReport | undefined): SummaryRow[] {
  const rows = core?.peers?.rows ?? [];
  const rate = (keys: number) => rows.find((r) => r.kind === 'rate' && r.keys === keys);
  const heap = rows.filter((r) => r.kind === 'heap').at(-1);
  return [
    coreRow(rate(1), 'awaited `RateLimiter.consume`, memory, 1 key', 'ahead of every peer'),
    coreRow(
      rows.find((r) => r.kind === 'rate' && r.keys > 1),
      `the same, ${(rows.find((r) => r.kind === 'rate' && r.keys > 1)?.keys ?? 0).toLocaleString('en-US')} keys`,
      '>= 4 M/s',
    ),
    coreRow(
      heap,
      `heap per key with its key text (${(heap?.keys ?? 0).toLocaleString('en-US')} keys)`,
      '<= 100 B',
    ),
  ];
}

/** The summary rows, in the issue's order. */
export function summaryRows(
  core: CoreReport | undefined,
  redis: RedisReport | undefined,
  http: HttpReport | undefined,
): SummaryRow[] {
  const httpCase = (id: string) => http?.cases.find((c) => c.id === id);
  return [
    httpRow(httpCase('fastify-redis'), 'Fastify, Redis, allow', 0.7, 6) as SummaryRow,
    httpRow(httpCase('koa-redis'), 'Koa, Redis, allow', 0.8) as SummaryRow,
    ...redisRows(redis),
    ...coreRows(core),
  ];
}
