// `pnpm bench`: every part as a child process (its stdout and JSON kept in bench/results/), then the
// pages from the results: docs/benchmarks.md with its chart, and bench/results.md.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseCommand, scriptArgs } from './cli/args.js';
import { redisServerVersion } from './measure/common.js';
import { renderChart } from './report/chart.js';
import { renderPage, renderResults } from './report/render.js';
import type { PartRun, ReportInput, RunInfo } from './report/types.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench -- [options]',
  summary:
    'Every benchmark part in sequence (core, every peer, Redis, HTTP, HTTP in-process, outcome, stores), each in a process of its own, then docs/benchmarks.md, its chart (light and dark) and bench/results.md from their results.',
  options: {
    only: {
      type: 'string',
      default: 'core,peers,redis,http,inproc,outcome,stores',
      help: 'the parts to run, comma-separated',
    },
    quick: {
      type: 'boolean',
      help: 'one short round per figure (a smoke test, marked in the note)',
    },
    'report-only': {
      type: 'boolean',
      help: 'rewrite the pages from the last run in bench/results/ without measuring',
    },
    results: {
      type: 'string',
      arg: 'dir',
      help: "the folder of the parts' JSON (default bench/results)",
    },
    out: {
      type: 'string',
      arg: 'dir',
      help: 'write the pages into this folder instead of docs/ and bench/ (the re-render test)',
    },
  },
});

const here = path.dirname(fileURLToPath(import.meta.url));
const benchDir = path.resolve(here, '..');
const root = path.resolve(benchDir, '..');
const results = path.resolve(args.results ?? path.join(benchDir, 'results'));
const docs = path.join(root, 'docs');
const CHART = 'benchmarks.svg';
const RUN_FILE = path.join(results, 'run.json');

type Name = PartRun['name'];
/** Each part: its script and arguments (`--json <file>` follows them), and those of `--quick`. */
const PARTS: [Name, string, string][] = [
  ['core', 'src/core.ts --scale --no-peers', '--rounds 1 --ms 200 --scale-rounds 1'],
  // sluice vs every peer's in-memory store, in a process of its own (see core.ts).
  ['peers', 'src/core.ts --peers-only', '--rounds 1 --ms 200 --peer-heap-keys 100000'],
  ['redis', 'src/redis.ts --scale', '--rounds 1 --ms 500 --scale-rounds 1 --scale-ms 500'],
  ['outcome', 'src/outcome.ts', '--rounds 1 --ms 200'],
  ['http', 'src/http.ts', '--rounds 1 --duration 1 --warmup 1'],
  // Each framework's listener in process (Hono among them): the CPU a limiter adds over the floor.
  ['inproc', 'src/http-inproc.ts --rounds 50', '--rounds 3 --batch 200'],
  // PostgreSQL and SQLite beside RedisStore and their peers, judged against their floors.
  ['stores', 'src/stores.ts', '--rounds 1 --ms 300'],
];

/** Runs one part with bench/ as its working directory; its stdout is echoed and returned. */
function runPart(node: string[], argv: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...node, ...argv], {
      cwd: benchDir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out: Buffer.concat(chunks).toString('utf8') }));
  });
}

function osName(): string {
  try {
    const release = readFileSync('/etc/os-release', 'utf8').match(/^PRETTY_NAME="?([^"\n]*)/m);
    return `${release?.[1] ?? os.type()}, kernel ${os.release()}, ${os.arch()}`;
  } catch {
    return `${os.type()} ${os.release()} ${os.arch()}`;
  }
}

async function measureAll(): Promise<RunInfo> {
  const only = new Set(args.only.split(','));
  mkdirSync(results, { recursive: true });
  const cpus = os.cpus();
  const run: RunInfo = {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    command: `pnpm bench${
      args.quick || only.size < PARTS.length ? ` -- ${scriptArgs().join(' ')}` : ''
    }`,
    quick: args.quick,
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
      memGiB: os.totalmem() / 2 ** 30,
      os: osName(),
      node: process.version,
      redis: redisServerVersion(),
      loadBefore: os.loadavg(),
      loadAfter: [],
    },
    parts: [],
    totalSeconds: 0,
  };
  const start = performance.now();
  for (const [name, command, quick] of PARTS) {
    if (!only.has(name)) continue;
    const json = path.relative(benchDir, path.join(results, `${name}.json`));
    const argv = [...command.split(' '), '--json', json, ...(args.quick ? quick.split(' ') : [])];
    // bench:core measures heap bytes: it needs global.gc().
    const node = [...(command.startsWith('src/core.ts') ? ['--expose-gc'] : []), '--import', 'tsx'];
    console.log(`\n=== ${name}: node ${[...node, ...argv].join(' ')} ===\n`);
    // A part that fails before writing its JSON must not leave the last run's in the report.
    rmSync(path.join(results, `${name}.json`), { force: true });
    const t0 = performance.now();
    const { code, out } = await runPart(node, argv);
    writeFileSync(path.join(results, `${name}.txt`), out);
    run.parts.push({
      name,
      command: `node ${[...node, ...argv].join(' ')}`,
      seconds: (performance.now() - t0) / 1000,
      exitCode: code,
    });
    // Exit code 1 is a failed verdict (the figures are still there); anything else, or no
    // verdict line, is a crash: say so and go on with the other parts.
    if (!/^overall: /m.test(out))
      console.error(`\n${name} ended (exit ${code}) without its "overall:" line`);
  }
  run.totalSeconds = (performance.now() - start) / 1000;
  run.machine.loadAfter = os.loadavg();
  writeFileSync(RUN_FILE, `${JSON.stringify(run, null, 2)}\n`);
  return run;
}

type Reports = Required<Omit<ReportInput, 'run'>>;
/** Part `part`'s JSON (the peers part's is a core report), if it ran and wrote one. */
function readJson<P extends Name>(run: RunInfo, part: P) {
  type T = Reports[P extends 'peers' ? 'core' : Exclude<P, 'peers'>];
  if (!run.parts.some((x) => x.name === part)) return undefined;
  try {
    return JSON.parse(readFileSync(path.join(results, `${part}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const run: RunInfo = args['report-only']
    ? (JSON.parse(readFileSync(RUN_FILE, 'utf8')) as RunInfo)
    : await measureAll();
  const core = readJson(run, 'core');
  // The every-peer section comes from a process of its own (`--peers-only`).
  const peers = readJson(run, 'peers')?.peers;
  const input = {
    run,
    core: core && peers ? { ...core, peers } : core,
    redis: readJson(run, 'redis'),
    http: readJson(run, 'http'),
    inproc: readJson(run, 'inproc'),
    outcome: readJson(run, 'outcome'),
    stores: readJson(run, 'stores'),
  };
  const out = args.out === undefined ? undefined : path.resolve(args.out);
  const chartAt = path.join(out ?? docs, CHART);
  const pageAt = path.join(out ?? docs, 'benchmarks.md');
  const resultsAt = path.join(out ?? benchDir, 'results.md');
  mkdirSync(path.dirname(chartAt), { recursive: true });
  writeFileSync(chartAt, await renderChart(input));
  writeFileSync(chartAt.replace(/\.svg$/, '-dark.svg'), await renderChart(input, 'dark'));
  writeFileSync(pageAt, renderPage(input, CHART));
  writeFileSync(resultsAt, renderResults(input, `../docs/${CHART}`));
  console.log(
    `\nwrote ${[pageAt, chartAt, resultsAt].map((x) => path.relative(root, x)).join(', ')} (run: ${(run.totalSeconds / 60).toFixed(1)} min${run.totalSeconds > 600 ? ', OVER the 10-minute budget' : ''})`,
  );
}

await main();
