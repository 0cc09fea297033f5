// `pnpm faults`: the published fault matrix (docs/reliability.md). Seeded and bounded: every
// cell starts its own redis-server (a free port of 127.0.0.1, no persistence) and app
// processes, stops them by pid, and the run fails when a process of its own is left, or (the
// gate, `--quick` in CI) when a sluice cell admits past its documented bound, loses units
// past it, or crashes. Latencies and recovery times are published, never gated.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, type OptionSpecs, parseCommand } from '../cli/args.js';
import { machine, redisServerVersion } from '../measure/common.js';
import { redisCells } from './cells.js';
import { writeHeatmap } from './heatmap-svg.js';
import { type Bounds, breaches, type CellFigures, figures } from './measure.js';
import { otherCells } from './other-cells.js';
import { pgCells } from './pg-cells.js';
import { leftBehind } from './procs.js';
import { runRedisCell } from './redis-cell.js';
import { type CellResult, type Matrix, render } from './render.js';
import { sqliteCells } from './sqlite-cells.js';
import { topologyCells } from './topology-cells.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const RESULTS = path.resolve(HERE, '../../results/faults/matrix.json');
const PAGE = path.resolve(HERE, '../../../docs/reliability.md');

/** Renders the matrix in `results` to docs/reliability.md and its heat map beside it. */
async function renderPage(results: string): Promise<void> {
  const m = JSON.parse(readFileSync(results, 'utf8')) as Matrix;
  writeFileSync(PAGE, render(m));
  await writeHeatmap(m, path.dirname(PAGE));
}

/** Every cell, in the page's order. */
const allCells = (broken?: string) => [
  ...redisCells(broken),
  ...topologyCells(),
  ...pgCells(),
  ...sqliteCells(),
  ...otherCells(broken),
];

/**
 * Puts `run`'s cells into the matrix at `file` (same seed): a cell of the same id replaced, a new
 * one placed by `order` (the page's), versions joined, and the run noted in `merges` (its date,
 * cells, processes) so the page says which rows came from a later run.
 */
function mergeInto(file: string, run: Matrix, order: string[]): void {
  const m = JSON.parse(readFileSync(file, 'utf8')) as Matrix;
  if (m.seed !== run.seed)
    throw new Error(`--merge: the committed matrix has seed ${m.seed}, this run ${run.seed}`);
  const ids = new Set(run.cells.map((c) => c.id));
  const rank = (id: string) => {
    const i = order.indexOf(id);
    return i === -1 ? order.length : i;
  };
  m.cells = [...m.cells.filter((c) => !ids.has(c.id)), ...run.cells].sort(
    (a, b) => rank(a.id) - rank(b.id),
  );
  m.versions = { ...m.versions, ...run.versions };
  m.processes += run.processes;
  m.wallSeconds += run.wallSeconds;
  m.merges = [...(m.merges ?? []), { date: run.date, cells: run.cells.map((c) => c.id) }];
  writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`);
}

const COMMAND = {
  usage: 'pnpm faults -- [options]',
  summary:
    'Runs the fault matrix (docs/reliability.md): sluice and the Node peers under store faults, on processes of its own.',
  options: {
    seed: { type: 'number', default: 46, help: 'the seed of the load and the keys' },
    quick: { type: 'boolean', help: 'the CI subset (about 2 minutes): fails only on counts' },
    cell: {
      type: 'string',
      help: "run only this cell (its id, as the page prints it), or every cell of a fault ('stop/')",
      arg: 'id',
    },
    json: {
      type: 'string',
      help: 'where to write the results (default: bench/results/faults/matrix.json on a full run; none with --quick, --cell or --break)',
      arg: 'file',
    },
    merge: {
      type: 'boolean',
      help: 'with --cell: put the cells run into bench/results/faults/matrix.json (in the page order, replacing those of the same id; the same seed) and re-render docs/reliability.md',
    },
    'report-only': {
      type: 'boolean',
      help: 'render docs/reliability.md from the committed JSON, run nothing',
    },
    break: {
      type: 'string',
      help: 'put a deliberately broken limiter in the place of sluice, to show the gate fails: naive-timeout',
      arg: 'name',
    },
  },
} satisfies Command<OptionSpecs>;

/** A cell's own seed, from the run's seed and its id (FNV-1a): rerunning one cell alone gives it the same load. */
function cellSeed(seed: number, id: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The `postgres` binary's version, as `postgres --version` prints it. */
function postgresVersion(): string {
  try {
    return (
      /(\d+\.\d+)/.exec(execFileSync('postgres', ['--version'], { encoding: 'utf8' }))?.[1] ?? '?'
    );
  } catch {
    return 'not found';
  }
}

let crashes = 0;
process.on('unhandledRejection', () => void crashes++);
process.on('uncaughtException', () => void crashes++);

async function main(): Promise<number> {
  const { values: args } = parseCommand(COMMAND);
  if (args['report-only']) {
    await renderPage(RESULTS);
    return 0;
  }
  const started = new Date();
  const results: CellResult[] = [];
  const failures: string[] = [];
  const cells = allCells(args.break).filter(
    (c) =>
      (!args.quick || c.quick) &&
      (args.cell === undefined ||
        c.id === args.cell ||
        (args.cell.endsWith('/') && c.id.startsWith(args.cell))),
  );
  for (const [i, c] of cells.entries()) {
    const before = crashes;
    const t = performance.now();
    let f: CellFigures;
    let bounds: Bounds = c.bounds;
    if (c.kind === 'redis') {
      const r = await runRedisCell(c, cellSeed(args.seed, c.id), `${c.id}:${args.seed}`);
      f = figures(r.requests, r.timeline, r.logLines, crashes - before);
    } else {
      f = await c.run(cellSeed(args.seed, c.id));
      f.crashes += crashes - before;
      bounds = c.bounds;
    }
    const peer = c.subject.peer;
    const broken = breaches(f, bounds, peer === undefined);
    const row: CellResult = {
      id: c.id,
      fault: c.fault.label,
      faultId: c.fault.id,
      subject: c.subject.label,
      peer: peer ?? null,
      bounds,
      boundText: c.boundText,
      quick: c.quick,
      figures: f,
      ok: broken.length === 0,
    };
    results.push(row);
    if (broken.length > 0) failures.push(`${c.id}: ${broken.join(', ')}`);
    process.stderr.write(
      `[${i + 1}/${cells.length}] ${c.id}: admitted ${f.admitted}/${f.offered} (limit ${f.limit}), over ${f.over}, lost ${f.lost}, p99 +${f.p99AddedMs} ms, recover ${f.recoverMs ?? '-'} ms${broken.length > 0 ? `  BOUND BROKEN: ${broken.join(', ')}` : ''} (${Math.round(performance.now() - t)} ms)\n`,
    );
  }
  const left = leftBehind();
  if (left.alive.length > 0) failures.push(`processes left behind: pids ${left.alive.join(', ')}`);
  const matrix: Matrix = {
    seed: args.seed,
    date: started.toISOString().slice(0, 10),
    quick: args.quick,
    wallSeconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: machine(),
    versions: {
      redis: redisServerVersion(),
      ioredis: '6.0.0',
      'rate-limiter-flexible': '11.4.0',
      'express-rate-limit': '8.7.4',
      'rate-limit-redis': '4.3.1',
      'hono-rate-limiter': '0.5.4',
      '@upstash/ratelimit': '2.2.0',
      '@upstash/redis': '1.39.0',
      '@valkey/valkey-glide': '2.5.2',
      postgresql: postgresVersion(),
      pg: '8.23.1',
      'better-sqlite3': '12.9.0',
    },
    processes: left.started,
    cells: results,
  };
  if (args.merge) {
    if (args.cell === undefined || args.quick)
      throw new Error('--merge: only with --cell (and not --quick)');
    if (failures.some((f) => f.startsWith('processes left')))
      throw new Error('--merge: a process was left behind; nothing merged');
    mergeInto(
      RESULTS,
      matrix,
      allCells().map((c) => c.id),
    );
    await renderPage(RESULTS);
  }
  const out =
    args.json ??
    (args.quick || args.cell !== undefined || args.break !== undefined ? undefined : RESULTS);
  if (out !== undefined) {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(matrix, null, 2)}\n`);
    if (out === RESULTS) await renderPage(RESULTS);
  }
  process.stderr.write(
    `${results.length} cells, ${left.started} processes started, ${left.alive.length} left; ${failures.length === 0 ? 'every bound held' : `FAILED:\n  ${failures.join('\n  ')}`}\n`,
  );
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
