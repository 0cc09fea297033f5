/**
 * bench:core's "sluice vs every peer" section over the subjects of cases/core-peers.ts, in
 * one run: awaited decisions/s over 1 key and over `keys` pre-built keys round robin
 * (subjects interleaved A B C D E per round, medians of the rounds), then heap bytes per key
 * with its key text (keys built during insertion, held only by the limiter).
 */
import { type Instance, SUBJECTS } from '../cases/core-peers.js';
import { median, plainTable } from './common.js';
import { heapDelta, makeKeys, userKeys } from './core-loops.js';

/** The section's JSON, part of core.ts's CoreReport. */
export interface PeersReport {
  rounds: number;
  ms: number;
  keys: number;
  subjects: { name: string; call: string; counted: string }[];
  rows: PeerRow[];
}

export interface PeerRow {
  label: string;
  kind: 'rate' | 'heap';
  keys: number;
  /** Per subject, in `subjects` order: the median and every round (heap: one measure). */
  figures: { name: string; median: number; rounds: number[] }[];
  /** sluice's goal, or undefined for an informative row. */
  target: string | undefined;
  verdict: 'PASS' | 'FAIL' | '(info)';
  /** How far sluice is from the target, '-' when met. */
  gap: string;
}

const mps = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
const pct = (x: number) => `${(x * 100).toFixed(0)}%`;

/** sluice ahead of every peer (median against median). */
function ahead(row: PeerRow): void {
  const [sluice, ...peers] = row.figures;
  const behind = peers.filter((p) => p.median >= sluice!.median);
  row.target = 'ahead of every peer';
  row.verdict = behind.length === 0 ? 'PASS' : 'FAIL';
  row.gap =
    behind
      .map((p) => `${p.name} ${mps(p.median)}: sluice at ${pct(sluice!.median / p.median)}`)
      .join('; ') || '-';
}

function atLeast(row: PeerRow, rate: number): void {
  const sluice = row.figures[0]!.median;
  row.target = `>= ${mps(rate)}`;
  row.verdict = sluice >= rate ? 'PASS' : 'FAIL';
  row.gap = sluice >= rate ? '-' : `${pct(sluice / rate)} of ${mps(rate)}`;
}

function atMost(row: PeerRow, bytes: number): void {
  const sluice = row.figures[0]!.median;
  row.target = `<= ${bytes} B`;
  row.verdict = sluice <= bytes ? 'PASS' : 'FAIL';
  row.gap = sluice <= bytes ? '-' : `${(sluice - bytes).toFixed(1)} B over`;
}

const emptyRow = (label: string, kind: PeerRow['kind'], keys: number): PeerRow => ({
  label,
  kind,
  keys,
  figures: SUBJECTS.map((s) => ({ name: s.name, median: 0, rounds: [] })),
  target: undefined,
  verdict: '(info)',
  gap: '-',
});

const fill = async (instance: Instance, n: number): Promise<Instance> => {
  for (const key of userKeys(n)) await instance.consume(key);
  return instance;
};

/**
 * Runs the section: heap first (each size, every subject), then the two throughput rows.
 * Verdicts: 1 key, sluice ahead of every peer; `keys` keys, sluice >= 4 M/s; heap with key
 * text at the largest of `heapKeys`, sluice <= 100 B.
 */
export async function runPeers(options: {
  rounds: number;
  ms: number;
  keys: number;
  heapKeys: number[];
}): Promise<PeersReport> {
  const { rounds, ms, keys, heapKeys } = options;
  const heapRows: PeerRow[] = [];
  for (const n of heapKeys) {
    const r = emptyRow(
      `heap bytes per key incl. key text, ${n.toLocaleString('en-US')} keys`,
      'heap',
      n,
    );
    for (const [k, s] of SUBJECTS.entries()) {
      const perKey = await heapDelta(
        () => fill(s.create(n, true), n),
        n,
        async (built) => {
          await built.verify(n);
          await built.dispose(userKeys(n));
        },
      );
      r.figures[k]!.rounds.push(perKey);
    }
    heapRows.push(r);
    process.stderr.write(`peers: heap at ${n} keys done\n`);
  }

  const many = makeKeys(keys);
  const one = ['user:42'];
  const cases = [
    { row: emptyRow('awaited decisions/s, 1 key', 'rate', 1), keys: one },
    {
      row: emptyRow(
        `awaited decisions/s, ${keys.toLocaleString('en-US')} keys round robin`,
        'rate',
        keys,
      ),
      keys: many,
    },
  ].map((c) => ({ ...c, instances: SUBJECTS.map((s) => s.create(keys, false)) }));
  // Warm-up: JIT, and every store filled with its keys; not measured.
  for (const c of cases) for (const inst of c.instances) await inst.rate(c.keys, ms);
  for (let r = 0; r < rounds; r++) {
    for (const c of cases)
      for (const [k, inst] of c.instances.entries())
        c.row.figures[k]!.rounds.push(await inst.rate(c.keys, ms));
    process.stderr.write(`peers: round ${r + 1}/${rounds} done\n`);
  }
  for (const c of cases) for (const inst of c.instances) await inst.dispose(c.keys);

  const rows = [...cases.map((c) => c.row), ...heapRows];
  for (const r of rows) for (const f of r.figures) f.median = median(f.rounds);
  ahead(cases[0]!.row);
  atLeast(cases[1]!.row, 4e6);
  if (heapRows.length > 0) atMost(heapRows.at(-1)!, 100);
  print(rows);
  return {
    rounds,
    ms,
    keys,
    subjects: SUBJECTS.map(({ name, call, counted }) => ({ name, call, counted })),
    rows,
  };
}

function print(rows: PeerRow[]): void {
  const value = (r: PeerRow, x: number) => (r.kind === 'rate' ? mps(x) : `${x.toFixed(1)} B`);
  const t = plainTable([
    'core: sluice vs every peer',
    ...SUBJECTS.map((s) => s.name),
    'target',
    'verdict',
  ]);
  for (const r of rows)
    t.push([r.label, ...r.figures.map((f) => value(r, f.median)), r.target ?? '-', r.verdict]);
  console.log(t.toString());
  console.log(
    `per-round figures (${SUBJECTS.map((s) => s.name).join(' | ')}):\n${rows
      .map(
        (r) =>
          `  ${r.label}: ${r.figures.map((f) => f.rounds.map((x) => (r.kind === 'rate' ? (x / 1e6).toFixed(2) : x.toFixed(1))).join(' ')).join(' | ')}`,
      )
      .join('\n')}`,
  );
  console.log(
    `measured calls:\n${SUBJECTS.map((s) => `  ${s.name}: ${s.call}; keys held checked by ${s.counted}`).join('\n')}\n`,
  );
}
