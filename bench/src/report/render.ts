// The one renderer of the pages: fills bench/templates/*.md with mustache from the results; this
// file only turns figures into the values the templates name (verdicts from verdicts.ts).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Mustache from 'mustache';
import { writeJson } from '../measure/common.js';
import { bytes, count, kps, mps, ns, pct, ratio, rounds, rps, us } from './format.js';
import { inprocView } from './inproc.js';
import { flatView, peerMemoryView, peerView, summaryRows, targetRows } from './targets.js';
import type {
  CoreReport,
  HttpReport,
  OutcomeReport,
  PartRun,
  RedisReport,
  ReportInput,
  RunInfo,
  StoresReport,
} from './types.js';
import {
  ESTIMATE_TARGET_NS,
  flatness,
  httpSides,
  ioredisRow,
  judgeCoreRow,
  judgeHeap,
  judgeHttp,
  judgeKeyBytes,
  judgeRedisRow,
  judgeStore,
  TARGETS,
} from './verdicts.js';

const BENCH = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const template = (name: string) => read(`${BENCH}templates/${name}.md`);
const SECTIONS = ['core', 'redis', 'http', 'inproc', 'outcome', 'stores'] as const;
/** The parts' sections, and the hand-written notes results.md includes. */
const partials = () => ({
  ...Object.fromEntries(SECTIONS.map((name) => [name, template(name)])),
  profile: `${read(`${BENCH}profile.md`).trim()}\n`,
  gaps: `${read(`${BENCH}gaps.md`).trim()}\n`,
});

/** `{{x}}` is a table cell (a `|` in it escaped); `{{{x}}}` is written as it is. */
const cell = (s: unknown) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');
const fill = (name: string, view: object) =>
  Mustache.render(template(name), view, partials(), { escape: cell });

/** The command line of part `name` as it ran, or `(not run)`; a part alone: its own. */
const partCommand = (run: RunInfo | undefined, name: PartRun['name']) =>
  run === undefined
    ? `node ${process.execArgv.join(' ')} ${process.argv
        .slice(1)
        .map((a) => a.replace(BENCH, ''))
        .join(' ')}`
    : (run.parts.find((x) => x.name === name)?.command ?? '(not run)');

function coreView(core: CoreReport, run?: RunInfo) {
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  return {
    command: partCommand(run, 'core'),
    config: core.config,
    keys: count(core.config.keys),
    throughput: core.throughput.map((r) => ({
      label: r.label,
      sluice: mps(r.sluice),
      rlf: mps(r.rlf),
      ratio: ratio(r.sluice / r.rlf),
      target: r.judged ? `>= ${TARGETS.core.vsRlf}x RLF` : '-',
      verdict: judgeCoreRow(r),
      rounds: `${rounds(r.sluiceRounds, 1e6, 2)} | ${rounds(r.rlfRounds, 1e6, 2)}`,
    })),
    heap: core.heap.map((h) => ({
      name: h.name,
      overhead: bytes(h.overhead),
      withKeys: bytes(h.withKeys),
      vsRlf: rlfHeap === undefined || h === rlfHeap ? '-' : ratio(h.overhead / rlfHeap.overhead),
      target: judgeHeap(h) === '(info)' ? '-' : `<= ${TARGETS.core.heapBytes} B`,
      verdict: judgeHeap(h),
    })),
  };
}

function peersView(core: CoreReport, run?: RunInfo) {
  const p = core.peers!;
  const names = p.subjects.map((x) => x.name);
  return {
    ...p,
    command: partCommand(run, run?.parts.some((x) => x.name === 'peers') ? 'peers' : 'core'),
    names: names.join(', '),
    head: names.join(' | '),
    dashes: names.map(() => '---').join(' | '),
    keys: count(p.keys),
    rows: p.rows.map((r) => peerView(r, p.rows)),
  };
}

function coreScaleView(core: CoreReport) {
  const s = core.scale!;
  const f = flatness(s.rows, TARGETS.core.flat, 'store');
  return {
    ...s,
    ms: core.config.ms,
    rows: s.rows.map((r) => ({
      keys: count(r.keys),
      sluice: mps(r.sluice),
      rlf: mps(r.rlf),
      ratio: ratio(r.sluice / r.rlf),
      ns: `${ns(r.sluice)} | ${ns(r.rlf)}`,
      store: `${mps(r.store)} (${ns(r.store)})`,
      heapSluice: bytes(r.heapSluice),
      heapRlf: bytes(r.heapRlf),
      heapRatio: ratio(r.heapSluice / r.heapRlf),
      rounds: [r.sluiceRounds, r.rlfRounds, r.storeRounds]
        .map((x) => rounds(x, 1e6, 2))
        .join(' | '),
    })),
    flat: flatView(f, TARGETS.core.flat, mps),
  };
}

function redisView(redis: RedisReport, run?: RunInfo) {
  const t = TARGETS.redis;
  const rlfAuto = ioredisRow(redis, false, true);
  const [gcraUs, noopUs] = [1e6 / redis.ceiling.rate, 1e6 / redis.noopCeiling.rate];
  const m = redis.peerMemory;
  const s = redis.scale;
  return {
    command: partCommand(run, 'redis'),
    config: redis.config,
    keys: count(redis.config.keys),
    t,
    ofCeiling: pct(t.ofCeiling),
    noise: pct(1 - t.autoOfPlain),
    throughput: redis.throughput.map((r) => {
      const j = judgeRedisRow(redis, r);
      return {
        label: r.label,
        rate: kps(r.rate),
        rlfAuto: rlfAuto === undefined ? '-' : kps(rlfAuto.rate),
        ratio: ratio(j.vsRlfAuto),
        ofCeiling: pct(j.ofCeiling),
        ofPlain: j.ofPlain === null ? '-' : ratio(j.ofPlain),
        verdict: j.verdict,
        rounds: rounds(r.rounds, 1e3, 1),
      };
    }),
    ceiling: { rate: kps(redis.ceiling.rate), rounds: rounds(redis.ceiling.rounds, 1e3, 1) },
    noop: {
      rate: kps(redis.noopCeiling.rate),
      ofCeiling: pct(redis.noopCeiling.rate / redis.ceiling.rate),
      rounds: rounds(redis.noopCeiling.rounds, 1e3, 1),
    },
    gcraUs: gcraUs.toFixed(2),
    noopUs: noopUs.toFixed(2),
    scriptUs: (gcraUs - noopUs).toFixed(2),
    scriptShare: pct((gcraUs - noopUs) / gcraUs),
    memory: redis.memory.map((x) => {
      const j = judgeKeyBytes(x.bytes);
      return {
        ...x,
        verdict: x.sluice ? `${j.pass}; aim ${j.aimMet ? 'met' : 'not met'}` : '(info)',
      };
    }),
    peerMemory: m !== undefined && peerMemoryView(m),
    overLimit: redis.overLimit !== undefined && {
      ...redis.overLimit,
      denySpeedup: redis.overLimit.denySpeedup.toFixed(1),
      allowRatio: redis.overLimit.allowRatio.toFixed(2),
      rows: redis.overLimit.rows.map((r) => ({
        label: r.label,
        rate: kps(r.rate),
        store: r.storeCallsPerDecision.toFixed(r.storeCallsPerDecision < 0.01 ? 5 : 3),
        script: r.scriptCallsPerDecision.toFixed(r.scriptCallsPerDecision < 0.01 ? 5 : 3),
        rounds: rounds(r.rounds, 1e3, 1),
      })),
    },
    scale: s !== undefined && {
      ...s,
      flat: flatView(flatness(s.rows, t.flat), t.flat, kps),
      inFlight: redis.config.inFlight,
      rows: s.rows.map((r) => ({
        keys: count(r.keys),
        sluice: kps(r.sluice),
        rlf: kps(r.rlf),
        ratio: ratio(r.sluice / r.rlf),
        memSluice: bytes(r.memSluice),
        memRlf: bytes(r.memRlf),
        fill: `${r.fillSluice.toFixed(1)} | ${r.fillRlf.toFixed(1)}`,
        rounds: `${rounds(r.sluiceRounds, 1e3, 1)} | ${rounds(r.rlfRounds, 1e3, 1)}`,
      })),
    },
  };
}

function httpView(http: HttpReport) {
  const verdicts = http.cases.map(judgeHttp);
  return {
    config: http.config,
    loadStart: http.config.loadStart[0]!.toFixed(2),
    loadEnd: http.config.loadEnd[0]!.toFixed(2),
    pairs: http.cases.flatMap((c, k) => {
      const { base, sluice, peers } = httpSides(c);
      return peers.map((peer, i) => ({
        title: i === 0 ? c.title : '',
        peer: peer.limiter,
        base: rps(base.rps),
        sluice: rps(sluice.rps),
        peerRps: rps(peer.rps),
        sluiceRatio: sluice.ratio!.toFixed(3),
        peerRatio: peer.ratio!.toFixed(3),
        vsPeer: ratio(sluice.rps / peer.rps),
        deltaUs: `${us(sluice.deltaUs!)} | ${us(peer.deltaUs!)}`,
        cpuRatio: `${sluice.cpuRatio!.toFixed(3)} | ${peer.cpuRatio!.toFixed(3)}`,
        verdict: i === 0 ? `${verdicts[k]!.verdict}; ${verdicts[k]!.cpuVerdict}` : '',
      }));
    }),
    servers: http.cases.flatMap((c) =>
      c.rows.map((r, i) => ({
        title: i === 0 ? c.title : '',
        limiter: r.limiter,
        rps: r.rpsRounds.map(rps).join(' '),
        ratios: r.ratioRounds?.map((v) => v.toFixed(3)).join(' ') ?? '-',
        cpu: r.cpuUsRounds.map((v) => v.toFixed(1)).join(' '),
        busy: pct(r.busy),
        redisCalls: r.redisCalls === null ? '-' : r.redisCalls.toFixed(3),
        redisCpu:
          r.redisCpuUs === null
            ? '-'
            : `${r.redisCpuUs.toFixed(2)} (${count(Math.round(1e6 / r.redisCpuUs))})`,
        probe: r.probe,
      })),
    ),
    overall: {
      rps: verdicts.every((v) => v.verdict === 'PASS') ? 'PASS' : 'FAIL',
      cpu: verdicts.every((v) => v.cpuVerdict === 'PASS') ? 'PASS' : 'FAIL',
    },
  };
}

function outcomeView(outcome: OutcomeReport, run?: RunInfo) {
  return {
    ...outcome,
    command: partCommand(run, 'outcome'),
    rows: outcome.rows.map((r) => {
      const allow = outcome.rows.find((x) => x.store === r.store && x.path === 'allow')!;
      return {
        ...r,
        rps: rps(r.median),
        vsAllow: ratio(r.median / allow.median),
        rounds: rounds(r.rounds, 1e3, 1),
      };
    }),
  };
}

function storesView(stores: StoresReport, run?: RunInfo) {
  return {
    ...stores,
    command: partCommand(run, 'stores'),
    keys: count(stores.keys),
    rows: stores.rows.map((r) => ({
      ...r,
      rate: kps(r.decisionsPerSecond),
      ...judgeStore(r),
      rounds: rounds(r.rounds, 1e3, 1),
    })),
  };
}

/** The @sluice/ai rows of bench:core (measure/ai.ts): µs per call, the estimate's target. */
function coreAiView(ai: NonNullable<CoreReport['ai']>) {
  const micro = (n: number) => (n / 1000).toFixed(2);
  const estimateOk = ai.estimateP50Ns <= ESTIMATE_TARGET_NS;
  return {
    bodyBytes: count(ai.bodyBytes),
    tokens: count(ai.tokens),
    rows: [
      {
        label: 'estimateTokens, no tokenizer',
        p50: micro(ai.estimateP50Ns),
        p90: micro(ai.estimateP90Ns),
        target: '<= 5 µs p50',
        verdict: estimateOk ? 'PASS' : 'FAIL',
      },
      {
        label: "estimateTokens, gpt-tokenizer's countTokens",
        p50: micro(ai.estimateTokenizerP50Ns),
        p90: '-',
        target: '-',
        verdict: '(info)',
      },
      {
        label: 'tokenLimiter charge',
        p50: micro(ai.chargeP50Ns),
        p90: '-',
        target: '-',
        verdict: '(info)',
      },
      {
        label: 'tokenLimiter charge + settle',
        p50: micro(ai.chargeSettleP50Ns),
        p90: '-',
        target: '-',
        verdict: '(info)',
      },
      {
        label: 'RateLimiter.consume, same cost',
        p50: micro(ai.consumeP50Ns),
        p90: '-',
        target: '-',
        verdict: '(info)',
      },
    ],
  };
}

/** The values of every part's section (false: the part is absent). */
function partsView(input: Omit<ReportInput, 'run'> & { run?: RunInfo }) {
  const { run, core, redis, http, inproc, outcome, stores } = input;
  const ranHttp = run?.parts.some((x) => x.name === 'http') ?? false;
  return {
    core:
      core !== undefined && core.throughput.length + core.heap.length > 0 && coreView(core, run),
    peers: core?.peers !== undefined && peersView(core, run),
    coreScale: core?.scale !== undefined && coreScaleView(core),
    coreAi: core?.ai !== undefined && coreAiView(core.ai),
    redis: redis !== undefined && redisView(redis, run),
    command: partCommand(run, 'http'),
    http: http !== undefined && httpView(http),
    ranHttp,
    inproc: inproc !== undefined && inprocView(inproc, partCommand(run, 'inproc')),
    outcome: outcome !== undefined && outcomeView(outcome, run),
    stores: stores !== undefined && storesView(stores, run),
  };
}

/**
 * How every measuring part ends: its section of bench/results.md, the `overall:` line `pnpm bench`
 * checks, and with `--json <file>` its report.
 */
export function finishPart<N extends (typeof SECTIONS)[number]>(
  name: N,
  report: NonNullable<ReportInput[N]>,
  verdict: string,
  json: string | undefined,
): void {
  console.log(`\n${fill(name, partsView({ [name]: report })).trim()}\n\noverall: ${verdict}`);
  writeJson(json, report);
}

function pageView(input: ReportInput, chartFile: string) {
  const { run } = input;
  const m = run.machine;
  return {
    run,
    machine: m,
    chartFile,
    // The dark theme's drawing (docs/.vitepress/theme/Plot.vue's classes pick one).
    chartDarkFile: chartFile.replace(/\.svg$/, '-dark.svg'),
    day: run.date.slice(0, 10),
    memGiB: m.memGiB.toFixed(0),
    load: m.loadBefore[0]!.toFixed(2),
    loadBefore: m.loadBefore.map((x) => x.toFixed(2)).join(' '),
    loadAfter: m.loadAfter.map((x) => x.toFixed(2)).join(' '),
    busyMachine: m.loadBefore[0]! > 0.5,
    minutes: (run.totalSeconds / 60).toFixed(1),
    wholeMinutes: (run.totalSeconds / 60).toFixed(0),
    partTimes: run.parts.map((x) => `${x.name} ${x.seconds.toFixed(0)} s`).join(', '),
    overBudget: run.totalSeconds > 600,
    parts: run.parts.map((x) => ({
      ...x,
      seconds: x.seconds.toFixed(0),
      exit: `${x.exitCode}${x.exitCode === 1 ? ' (a verdict failed)' : ''}`,
    })),
    summary: summaryRows(input),
    targets: targetRows(input),
    ...partsView(input),
  };
}

/** The site's page, docs/benchmarks.md (the chart at `chartFile`, relative to it). */
export const renderPage = (input: ReportInput, chartFile: string) =>
  fill('benchmarks', pageView(input, chartFile));

/** The full results, bench/results.md (in the repository, not on the site). */
export const renderResults = (input: ReportInput, chartFile: string) =>
  fill('results', pageView(input, chartFile));
