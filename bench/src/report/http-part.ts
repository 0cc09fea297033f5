/**
 * bench:http's report: each case's figures and verdicts from its servers' rounds, the JSON it
 * writes (read by `pnpm bench`'s pages) and the console table of its cases.
 */

import type { Variant } from '../cases/http-apps.js';
import {
  aimText,
  BASELINES,
  type Framework,
  floorText,
  type Group,
  PEERS_CONFIG,
  REDIS_CLIENT,
  SLUICE_CONFIG,
} from '../cases/http-cases.js';
import { median, plainTable } from '../measure/common.js';

/** One server's figures in a case (medians, and every round). */
export interface HttpRow {
  /** 'unlimited', 'sluice' or the peer's name. */
  limiter: string;
  role: 'unlimited' | 'sluice' | 'peer' | 'baseline';
  variant: Variant;
  /** Requests/s: median and per round. */
  rps: number;
  rpsRounds: number[];
  /** limited / unlimited req/s, median of the per-round ratios (null for unlimited). */
  ratio: number | null;
  ratioRounds: number[] | null;
  /** Server CPU (user + system) per request, µs: median and per round. */
  cpuUs: number;
  cpuUsRounds: number[];
  /** Median of (limited - unlimited CPU µs per request) per round (null for unlimited). */
  deltaUs: number | null;
  /** Median of (unlimited / limited CPU per request) per round (null for unlimited). */
  cpuRatio: number | null;
  /** Server CPU time / wall time: median and per round. */
  busy: number;
  busyRounds: number[];
  /** Redis script calls per request (INFO commandstats EVAL/EVALSHA/FCALL delta / responses): median and per round; null without Redis. */
  redisCalls: number | null;
  redisCallsRounds: number[] | null;
  /**
   * The redis-server's CPU per request (INFO cpu delta / responses, µs: includes the INFO
   * calls themselves and anything else the server did meanwhile): median; null without
   * Redis. 1e6 / it = decisions/s one Redis core could serve.
   */
  redisCpuUs: number | null;
  /** Status and rate-limit header names of the first response. */
  probe: string;
}

export interface HttpCase {
  id: string;
  title: string;
  framework: Framework;
  /** Minimum req/s ratio sluice must reach (null: only "ahead of peers"). */
  floor: number | null;
  floorText: string;
  aim: { ratio: number; us: number | null };
  aimText: string;
  /** Floor met and ahead of every peer, on the req/s ratio / on the CPU ratio. */
  verdict: 'PASS' | 'FAIL';
  cpuVerdict: 'PASS' | 'FAIL';
  /** sluice's req/s ratio >= aim.ratio and Δµs <= aim.us. */
  aimMet: boolean;
  /** Unlimited, sluice, then the peers. */
  rows: HttpRow[];
}

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface HttpReport {
  kind: 'http';
  date: string;
  machine: { cores: number; cpu: string; node: string; platform: string };
  config: {
    rounds: number;
    duration: number;
    warmup: number;
    connections: number;
    pinned: boolean;
    pinning: string;
    sluice: string;
    peers: string;
    /** The bench's redis-server, when a Redis case ran; `pinning`: where it ran. */
    redis: { version: string; port: number; client: string; pinning: string } | null;
    /** 1/5/15-minute load averages at the start and the end. */
    loadStart: number[];
    loadEnd: number[];
  };
  cases: HttpCase[];
  overall: { rps: 'PASS' | 'FAIL'; cpu: 'PASS' | 'FAIL' };
}

/** What a case's verdict reads of one server: its label, variant and figures per round. */
export interface ServerFigures {
  variant: Variant;
  label: string;
  /** Rate-limit header names and status of one request made before the measurements. */
  probe: string;
  rps: number[];
  cpuUs: number[];
  busy: number[];
  /** Redis script calls per request (Redis variants only). */
  redisCalls: number[];
  /** The redis-server's CPU (user + system) per request, µs (Redis variants only). */
  redisCpuUs: number[];
}

/** The case's figures and verdicts from its servers' rounds. */
export function judge(g: Group, base: ServerFigures, limited: ServerFigures[]): HttpCase {
  const perRound = (s: ServerFigures, f: (x: number, b: number) => number, xs: 'rps' | 'cpuUs') =>
    s[xs].map((x, i) => f(x, base[xs][i]!));
  const row = (s: ServerFigures): HttpRow => {
    const isBase = s === base;
    const ratioRounds = isBase ? null : perRound(s, (x, b) => x / b, 'rps');
    return {
      limiter: isBase ? 'unlimited' : s.label,
      role: isBase
        ? 'unlimited'
        : s === limited[0]
          ? 'sluice'
          : BASELINES.some(([v]) => v === s.variant)
            ? 'baseline'
            : 'peer',
      variant: s.variant,
      rps: median(s.rps),
      rpsRounds: s.rps,
      ratio: ratioRounds && median(ratioRounds),
      ratioRounds,
      cpuUs: median(s.cpuUs),
      cpuUsRounds: s.cpuUs,
      deltaUs: isBase ? null : median(perRound(s, (x, b) => x - b, 'cpuUs')),
      cpuRatio: isBase ? null : median(perRound(s, (x, b) => b / x, 'cpuUs')),
      busy: median(s.busy),
      busyRounds: s.busy,
      redisCalls: s.redisCalls.length > 0 ? median(s.redisCalls) : null,
      redisCallsRounds: s.redisCalls.length > 0 ? s.redisCalls : null,
      redisCpuUs: s.redisCpuUs.length > 0 ? median(s.redisCpuUs) : null,
      probe: s.probe,
    };
  };
  const [sluice, ...others] = limited.map(row) as [HttpRow, ...HttpRow[]];
  const peers = others.filter((r) => r.role === 'peer');
  const judged = (x: (r: HttpRow) => number) =>
    (g.floor === undefined || x(sluice) >= g.floor) && peers.every((p) => x(sluice) > x(p));
  return {
    id: g.id,
    title: g.title,
    framework: g.framework,
    floor: g.floor ?? null,
    floorText: floorText(g),
    aim: { ratio: g.aim.ratio, us: g.aim.us ?? null },
    aimText: aimText(g),
    verdict: judged((r) => r.ratio!) ? 'PASS' : 'FAIL',
    cpuVerdict: judged((r) => r.cpuRatio!) ? 'PASS' : 'FAIL',
    aimMet: sluice.ratio! >= g.aim.ratio && (g.aim.us === undefined || sluice.deltaUs! <= g.aim.us),
    rows: [row(base), sluice, ...others],
  };
}

/** Every case's rows as a console table, then how to read it and, with Redis, the calls. */
export function printCases(cases: HttpCase[], withRedis: boolean): void {
  const t = plainTable([
    'case',
    'limiter',
    'req/s',
    'limited / unlimited',
    'CPU µs/req',
    'Δµs',
    'CPU ratio',
    'server busy',
    'floor',
    'aim',
    'verdict (req/s)',
    'verdict (CPU)',
  ]);
  for (const c of cases) {
    for (const [i, r] of c.rows.entries()) {
      const sluice = r.role === 'sluice';
      t.push([
        i === 0 ? c.title : '',
        r.limiter,
        Math.round(r.rps).toLocaleString('en-US'),
        r.ratio === null ? '-' : r.ratio.toFixed(3),
        r.cpuUs.toFixed(1),
        r.deltaUs === null ? '-' : `${r.deltaUs >= 0 ? '+' : ''}${r.deltaUs.toFixed(1)}`,
        r.cpuRatio === null ? '-' : r.cpuRatio.toFixed(3),
        `${(r.busy * 100).toFixed(0)}%`,
        sluice ? c.floorText : '',
        sluice ? c.aimText : '',
        sluice ? c.verdict : '',
        sluice ? c.cpuVerdict : '',
      ]);
    }
  }
  console.log(t.toString());
  console.log(
    'limited / unlimited, Δµs, CPU ratio: medians over rounds of (limited / unlimited req/s), (limited - unlimited CPU per request) and (unlimited / limited CPU per request), each pair measured in the same round; ' +
      'server busy: server CPU time / wall time (near 100%: the server, not autocannon, is the bottleneck; well under: the req/s ratio is unreliable, read the CPU ratio).',
  );
  console.log(`sluice: ${SLUICE_CONFIG}; peers: ${PEERS_CONFIG}.`);
  if (withRedis) {
    // Shows that each Redis limiter did go to Redis, and how often (sluice coalesces).
    const perRequest = cases.flatMap((c) =>
      c.rows
        .filter((r) => r.redisCalls !== null)
        .map((r) => `${c.framework} ${r.limiter} ${r.redisCalls!.toFixed(3)}`),
    );
    console.log(
      `Redis: ${REDIS_CLIENT}; script calls per request (INFO commandstats EVAL/EVALSHA/FCALL delta / responses): ${perRequest.join(', ')}`,
    );
    const perCore = cases.flatMap((c) =>
      c.rows
        .filter((r) => r.redisCpuUs !== null)
        .map(
          (r) =>
            `${c.framework} ${r.limiter} ${r.redisCpuUs!.toFixed(2)} µs (${Math.round(1e6 / r.redisCpuUs!).toLocaleString('en-US')}/s)`,
        ),
    );
    console.log(
      `redis-server CPU per request (INFO cpu delta / responses), and the decisions/s one Redis core serves at that cost: ${perCore.join(', ')}`,
    );
  }
}
