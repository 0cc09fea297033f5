/**
 * The site's benchmarks page, `docs/benchmarks.md`: the chart first, then the summary table
 * (sluice against the best peer of each case), the machine, and how to reproduce. Every
 * round, every peer and each target's gap are in `bench/results.md` (results.ts), which the
 * same run writes beside it, in the repository and not on the site.
 */
import { table } from './format.js';
import { summaryRows } from './summary.js';
import type { ReportInput } from './types.js';

/** Where the full results are, from the repository root. */
export const RESULTS_FILE = 'bench/results.md';

/** The page: short enough to read, its figures all from the run in `input`. */
export function renderPage(input: ReportInput): string {
  const { run, core, redis, http } = input;
  const m = run.machine;
  const blocks = [
    '# Benchmarks',
    `![Requests/s and decisions/s of sluice and its peers, per case](${input.chartFile})`,
    'sluice against express-rate-limit, @fastify/rate-limit, koa-ratelimit and ' +
      'rate-limiter-flexible, each case measured in the same run on the same machine. ' +
      'Compare ratios, not absolute figures: those depend on the machine and on whatever ' +
      'else it was running.',
  ];
  if (run.quick)
    blocks.push(
      '::: warning Smoke run\nMeasured with `--quick` (one short round per figure): these ' +
        'figures only show that the suite works.\n:::',
    );
  blocks.push(
    '## Summary',
    'Each row: sluice, the best peer of that case, the goal sluice is held to, and whether ' +
      'it is met. HTTP rows are limited / unlimited requests per second of the same ' +
      "framework and the limiter's own server CPU per request.",
    table(['case', 'sluice', 'best peer', 'goal', 'verdict'], summaryRows(core, redis, http)),
    '## How it was measured',
    [
      `- ${run.date.slice(0, 10)}: ${m.cores} cores (${m.cpu}), ${m.memGiB.toFixed(0)} GiB, ` +
        `${m.os}, Node ${m.node}, redis-server ${m.redis} on 127.0.0.1; load average ` +
        `${m.loadBefore[0]!.toFixed(2)} before the run.`,
      `- Reproduce from the repository root, on a quiet machine: \`pnpm install ` +
        `--frozen-lockfile && ${run.command}\` (${(run.totalSeconds / 60).toFixed(0)} minutes).`,
      '- Every figure is the median of interleaved rounds: sluice and its peer measured ' +
        'A B A B …, so both see the same load on the machine.',
      `- Every round, every peer, each target with what explains its gap, and where a ` +
        `Redis-backed request spends its time: \`${RESULTS_FILE}\` in the repository, ` +
        'written by the same run.',
    ].join('\n'),
  );
  return `${blocks.join('\n\n')}\n`;
}
