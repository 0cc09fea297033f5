// bench:core's every-peer section over cases/core-peers.ts: awaited decisions/s over 1 and `keys`
// keys (interleaved, medians), then heap bytes per key with its key text.
import { type Instance, SUBJECTS } from '../cases/core-peers.js';
import type { PeerRow, PeersReport } from '../report/types.js';
import { interleave, median } from './common.js';
import { heapDelta, makeKeys, userKeys } from './core-loops.js';

const emptyRow = (label: string, kind: PeerRow['kind'], keys: number): PeerRow => ({
  label,
  kind,
  keys,
  figures: SUBJECTS.map((s) => ({ name: s.name, median: 0, rounds: [] })),
});

const fill = async (instance: Instance, n: number): Promise<Instance> => {
  for (const key of userKeys(n)) await instance.consume(key);
  return instance;
};

/** Runs the section: heap first (each size, every subject), then the two throughput rows. */
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
  const runs = cases.flatMap((c) =>
    c.instances.map((inst, k) => ({
      figure: c.row.figures[k]!,
      rate: () => inst.rate(c.keys, ms),
    })),
  );
  const figures = await interleave(runs, rounds, (x) => x.rate(), {
    warmUp: (x) => x.rate(),
    label: 'peers: ',
  });
  for (const [i, x] of runs.entries()) x.figure.rounds.push(...figures[i]!);
  for (const c of cases) for (const inst of c.instances) await inst.dispose(c.keys);

  const rows = [...cases.map((c) => c.row), ...heapRows];
  for (const r of rows) for (const f of r.figures) f.median = median(f.rounds);
  return {
    rounds,
    ms,
    keys,
    subjects: SUBJECTS.map(({ name, call, counted }) => ({ name, call, counted })),
    rows,
  };
}
