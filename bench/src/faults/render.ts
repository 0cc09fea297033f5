// docs/reliability.md, rendered from bench/results/faults/matrix.json (`pnpm faults --
// --report-only` re-renders it; bench/test/faults-page.test.ts checks the committed page).
// Pure (no file access, no import.meta), so the page test imports it under jest.
import type { Bounds, CellFigures } from './measure.js';

export interface CellResult {
  id: string;
  fault: string;
  faultId: string;
  subject: string;
  peer: string | null;
  bounds: Bounds;
  boundText: string;
  quick: boolean;
  figures: CellFigures;
  ok: boolean;
}

export interface Matrix {
  seed: number;
  date: string;
  quick: boolean;
  wallSeconds: number;
  machine: { cores: number; cpu: string; node: string; platform: string };
  versions: Record<string, string>;
  processes: number;
  cells: CellResult[];
  /** Cells run later (`--cell … --merge`) into this matrix, each run's date and cell ids. */
  merges?: { date: string; cells: string[] }[];
}

const bound = (b: number | null): string => (b === null ? '—' : String(b));
const verdict = (c: CellResult): string =>
  c.peer !== null ? 'peer' : c.ok ? 'within' : '**broken**';

function table(m: Matrix, cells: CellResult[]): string[] {
  // Two tables a fault, so each fits the page's column at 1280 px: the counts, then time and health.
  // A peer's versions are in the header line; its verdict column says `peer`.
  const name = (c: CellResult) => c.subject;
  const rows = [
    '| subject | offered | admitted | limit | over (bound) | under | lost (bound) | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const c of cells) {
    const f = c.figures;
    rows.push(
      `| ${name(c)} | ${f.offered} | ${f.admitted} | ${f.limit} | ${f.over} (${bound(c.bounds.over)}) | ${f.under} | ${f.lost} (${bound(c.bounds.lost)}) | ${verdict(c)} |`,
    );
  }
  rows.push(
    '',
    '| subject | errors | p99 added | recovery | log lines | crashes |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const c of cells) {
    const f = c.figures;
    rows.push(
      `| ${name(c)} | ${f.errors} | ${f.p99AddedMs} ms | ${f.recoverMs === null ? '—' : `${f.recoverMs} ms`} | ${f.logLines} | ${f.crashes} |`,
    );
  }
  rows.push('');
  const notes = cells.filter((c) => c.figures.note !== undefined);
  for (const c of notes) rows.push(`- ${c.subject}: ${c.figures.note}.`);
  if (notes.length > 0) rows.push('');
  rows.push('Bounds of the sluice rows:', '');
  const seen = new Set<string>();
  for (const c of cells)
    if (c.peer === null && !seen.has(c.boundText)) {
      seen.add(c.boundText);
      rows.push(`- ${c.boundText}.`);
    }
  rows.push('', 'Rerun one cell:', '', '```sh');
  for (const c of cells) rows.push(`pnpm faults -- --seed ${m.seed} --cell ${c.id}`);
  rows.push('```', '');
  return rows;
}

/** The cells merged into `m`, by the date of their run. */
function mergedByDate(m: Matrix): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const r of m.merges ?? []) by.set(r.date, [...(by.get(r.date) ?? []), ...r.cells]);
  return [...by];
}

export function render(m: Matrix): string {
  const faults = [...new Set(m.cells.map((c) => c.faultId))];
  const sluice = m.cells.filter((c) => c.peer === null);
  const lines = [
    // No outline column beside the page: its tables need the width.
    '---',
    'aside: false',
    '---',
    '',
    '<!-- Rendered by `pnpm faults` from bench/results/faults/matrix.json: do not edit by hand (`pnpm faults -- --report-only` re-renders it). -->',
    '',
    '# Reliability: the fault matrix',
    '',
    'What sluice admits when its store fails, measured on real processes, beside the Node',
    "peers' released versions under the same faults and the same load. Each cell starts its",
    'own `redis-server` (a free port of 127.0.0.1, no persistence) and two app limiters, each',
    "on its own client and connection through a TCP proxy of the run (in the runner's",
    'process; the app-kill cell runs its app as a process of its own), and sends one key a',
    'seeded open-loop load (one request every 2.5–7.5 ms) in three phases: before the fault,',
    'during it, and after it heals (the seed fixes that schedule and the keys; the figures',
    'move a little with timing). Then it reads what the store kept, directly. The key',
    'spray rows with `maxKeys: 20` are the case of a gateway whose 20-entry LRU handed an',
    'evicted client a full bucket (a published bug of 2026): in sluice a denied key is',
    'evicted last.',
    '',
    'The same faults on the other stores and topologies: **PostgreSQL** (a private server of',
    "the cell's own, `initdb` into a temporary directory on a free port, run as the `postgres`",
    'user; the fault acts on its whole process group), **SQLite** (two connections on one',
    'file while a third holds the write lock; an app process SIGKILLed while it writes), and',
    "**Sentinel** and **Cluster** failovers (test-kit's topologies: the key's master SIGKILLed",
    'with the key exhausted, its replica promoted while the load goes on). Their bounds are',
    "the Redis rows': the failure policy is the core's, the same on every store.",
    '',
    '<figure class="plot">',
    '  <img class="plot-light" src="./reliability.svg" alt="The fault matrix as a heat map: over-admission of each subject under each fault, against its documented bound" />',
    '  <img class="plot-dark" src="./reliability-dark.svg" alt="The fault matrix as a heat map: over-admission of each subject under each fault, against its documented bound" />',
    '</figure>',
    '',
    'Green: within the bound (dark: none over; pale: at most half the bound); amber: more',
    'than half of it; red: past it (the gate fails); grey: no bound documented (a peer, or',
    '`allow`, which fails open). Each square prints what was admitted past the limit, as a',
    'share of the bound when it has one.',
    '',
    `Seed ${m.seed}, run on ${m.date}, ${m.cells.length} cells (${sluice.length} of sluice, ${sluice.filter((c) => c.ok).length} within their documented bound), ${m.processes} processes started and none left, ${m.wallSeconds} s on ${m.machine.cores} cores (${m.machine.cpu}, ${m.machine.platform}), Node ${m.machine.node}; ${Object.entries(
      m.versions,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    ...mergedByDate(m).flatMap(([date, ids]) => [
      `Rows run later into this matrix (\`--cell … --merge\`, the same seed and machine) on ${date}: ${ids.map((id) => `\`${id}\``).join(', ')}.`,
      '',
    ]),
    '## Reading a row',
    '',
    '- **offered**, **admitted**: the requests sent in the cell, and those the limiter let through.',
    '- **limit**: what the limit allows over the whole cell (one window, or a bucket of GCRA whose refill in the cell is under one unit).',
    '- **over**: admitted past the limit; **(bound)**: what the documentation promises at most (— none: a peer, or a policy that fails open).',
    '- **under**: requests denied while the limit had room (a fail-closed policy pays for its safety here).',
    "- **lost**: units charged in the store that no request got (a timed-out call that charged anyway, a crashed process's prefetched units): they are under-admission until the limit refills.",
    '- **errors**: requests that got no verdict (a 500, or no answer in 3 s); **p99 added**: the 99th percentile latency during the fault less the median before it; **recovery**: from the heal to the first request after which every request is answered in time (and, when the limit had room left, to the first admission after the heal: a breaker still open counts; — when neither came in the cell, or the fault does not heal). Latencies and recovery times are published, never gated: the machine is shared (two cores, other work running during the run), so they are loaded-machine figures, and noise.',
    '',
    'For a user: **within** means the bound held, and the bound is what to plan for. `deny`',
    'never admits past the limit and never loses a unit; `insurance` (the default) keeps',
    'serving, each process on its own memory (so up to one more limit per process for the',
    'length of the outage) while keys already over their limit stay denied; `allow` admits',
    'everything while the store fails. `pnpm faults -- --quick` (in CI) fails only on counts:',
    'a sluice row past its bound, units lost past it, a crash, a process left behind.',
    '',
    'On PostgreSQL and SQLite the same bounds hold: a stalled, killed or unreachable database is',
    'a store failure like a Redis one. A SQLite lock costs more than its length suggests: the',
    'store is synchronous, so each decision holds its whole process for the busy timeout',
    '(250 ms) before the policy answers; plan for that latency, not for extra admissions. A',
    'Sentinel or Cluster failover loses what the dead master had not replicated: a user already',
    'over the limit stays denied through it (the over-limit cache, and the replica has the',
    'count), and a unit charged in the last instant may be forgotten.',
    '',
    'Rerun one row with the command under its table; add `--merge` to put the rerun into',
    '`bench/results/faults/matrix.json` (the same seed) and re-render this page and its heat map.',
    '',
  ];
  for (const id of faults) {
    const cells = m.cells.filter((c) => c.faultId === id);
    lines.push(`## ${cells[0]!.fault}`, '', ...table(m, cells));
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
