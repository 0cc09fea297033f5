/**
 * What the pages are written from: the run (`pnpm bench`'s machine, parts and times) and the
 * JSON each part wrote.
 */

import type { OutcomeReport } from '../outcome.js';
import type { CoreReport } from './core-part.js';
import type { HttpReport } from './http-part.js';
import type { RedisReport } from './redis-part.js';

export interface PartRun {
  name: 'core' | 'peers' | 'redis' | 'http' | 'outcome';
  /** The command line, relative to bench/. */
  command: string;
  seconds: number;
  exitCode: number | null;
}

export interface RunInfo {
  /** ISO time the run started. */
  date: string;
  /** What reproduces the run, from the repository root. */
  command: string;
  quick: boolean;
  machine: {
    cores: number;
    cpu: string;
    memGiB: number;
    os: string;
    node: string;
    redis: string;
    /** 1/5/15-minute load averages before and after the run. */
    loadBefore: number[];
    loadAfter: number[];
  };
  parts: PartRun[];
  totalSeconds: number;
}

export interface ReportInput {
  run: RunInfo;
  core?: CoreReport;
  redis?: RedisReport;
  http?: HttpReport;
  /** Give-backs and concurrency leases (bench/src/outcome.ts). */
  outcome?: OutcomeReport;
  /** Path of the chart, relative to the page that shows it. */
  chartFile: string;
}

/** The command line of part `name` as it ran, or `(not run)`. */
export function partCommand(run: RunInfo, name: PartRun['name']): string {
  return run.parts.find((x) => x.name === name)?.command ?? '(not run)';
}
