/** bench/results.md's memory-store sections: bench:core, every peer, and at scale. */
import type { PeersReport } from '../measure/core-peers.js';
import type { CoreReport } from './core-part.js';
import { bytes, code, count, type Doc, mps, ns, ratio, rounds, table } from './format.js';
import { peerValue } from './targets.js';
import { partCommand, type RunInfo } from './types.js';

/** The core part's sections, in the order the page shows them. */
export function coreSections(doc: Doc, run: RunInfo, core: CoreReport): void {
  coreSection(doc, run, core);
  if (core.peers !== undefined) corePeersSection(doc, run, core.peers);
  if (core.scale !== undefined) coreScaleSection(doc, core, core.scale);
}

/** bench:core: its configuration, the compared rows and heap bytes per key. */
function coreSection(doc: Doc, run: RunInfo, core: CoreReport): void {
  doc.p('## Core: memory store', `Command: ${code(partCommand(run, 'core'))}`);
  doc.p(
    'Configuration:',
    `- sluice: ${core.config.sluice}`,
    `- peer: ${core.config.rlf}`,
    `- ${core.config.rounds} interleaved rounds of ~${core.config.ms} ms per figure, after an unmeasured warm-up pass; "${count(core.config.keys)} keys": pre-built keys ${code('user:<i>')} taken round robin; rows without "in flight" await each decision before the next; "256 in flight" rows keep ${core.config.inFlight} calls outstanding (Promise.all per ${core.config.inFlight}). The limits never deny.`,
    '- "extra" rows show where the time goes: an await of a constant decision (the ceiling of any promise-returning limiter) and the synchronous MemoryStore.consume without RateLimiter or promise, each beside RLF again.',
  );
  doc.p(
    table(
      [
        'decisions/s',
        'sluice',
        'RLF',
        'sluice / RLF',
        'target',
        'verdict',
        'rounds, M/s (sluice | RLF)',
      ],
      core.throughput.map((r) => [
        r.label,
        mps(r.sluice),
        mps(r.rlf),
        ratio(r.ratio),
        r.target === undefined ? '-' : `>= ${r.target}x RLF`,
        r.verdict,
        `${rounds(r.sluiceRounds, 1e6, 2)} | ${rounds(r.rlfRounds, 1e6, 2)}`,
      ]),
    ),
  );
  doc.p(
    `Heap bytes per key, ${count(core.config.keys)} keys: (heapUsed + arrayBuffers) delta around building the store, each side read after ${code('global.gc()')} once it stops shrinking (three readings 10 ms apart none lower by over 64 KiB: a closure being optimised in the background can hold a store let go just before), divided by the key count. "Store overhead": the key strings exist before the baseline and are handed to the store as they are; "incl. key text": keys built during insertion and held only by the limiter (sluice prefixes ${code('sluice:')}, RLF ${code('rlflx:')}).`,
  );
  const rlfHeap = core.heap.find((h) => h.name === 'rate-limiter-flexible');
  doc.p(
    table(
      [
        'heap per key',
        'store overhead',
        'incl. key text',
        'vs RLF (overhead)',
        'target',
        'verdict',
      ],
      core.heap.map((h) => [
        h.name,
        bytes(h.overhead),
        bytes(h.withKeys),
        rlfHeap === undefined || h === rlfHeap ? '-' : ratio(h.overhead / rlfHeap.overhead),
        h.target === undefined ? '-' : `<= ${h.target} B`,
        h.verdict,
      ]),
    ),
  );
}

/** bench:core's every-peer section (a process of its own in `pnpm bench`). */
function corePeersSection(doc: Doc, run: RunInfo, peers: PeersReport): void {
  const names = peers.subjects.map((x) => x.name);
  doc.p(
    '### Core: sluice vs every peer',
    `Command: ${code(partCommand(run, run.parts.some((x) => x.name === 'peers') ? 'peers' : 'core'))}: a process of its own, so what the sections above ran (fixed windows, other stores) leaves nothing in the JIT state of the subjects compared here (in the core process, after them, the same awaited sluice decision is the "RateLimiter.consume (awaited): GCRA" rows above).`,
    'Configuration (the measured call of each, and how the keys it holds were checked after the heap measure):',
    ...peers.subjects.map((x) => `- ${x.name}: ${code(x.call)}; keys held checked by ${x.counted}`),
    `- decisions/s: the subjects interleaved (${names.join(', ')}, then again) in ${peers.rounds} rounds of ~${peers.ms} ms per figure, after an unmeasured warm-up pass that also fills every store; each decision awaited before the next; "${count(peers.keys)} keys": pre-built keys ${code('user:<i>')} round robin. Every limit is 1e12 per 60 s window (sluice: the GCRA above), never reached: a denial aborts the run.`,
    `- heap: (heapUsed + arrayBuffers) delta around building the limiter, read as above, divided by the key count; keys ${code('user:<i>')} built during insertion and held only by the limiter (its key text included, with whatever prefix it adds); one measure per subject and size; sluice with the resident GCRA its line names (T = 1 h: every key stays live for the count check) and maxKeys = the key count.`,
  );
  doc.p(
    table(
      ['', ...names, 'target (sluice)', 'verdict', 'gap', `rounds (${names.join(' | ')})`],
      peers.rows.map((r) => [
        r.label,
        ...r.figures.map((f) => peerValue(r, f.median)),
        r.target ?? '-',
        r.verdict,
        r.gap,
        r.figures
          .map((f) => (r.kind === 'rate' ? rounds(f.rounds, 1e6, 2) : rounds(f.rounds, 1, 1)))
          .join(' | '),
      ]),
    ),
  );
}

/** bench:core --scale: the memory store at 1k, 100k and 1M resident keys. */
function coreScaleSection(doc: Doc, core: CoreReport, s: NonNullable<CoreReport['scale']>): void {
  doc.p(
    '### Memory store at scale',
    `sluice: RateLimiter + MemoryStore({ maxKeys: keys }) with ${code(s.config)} (T = 1 h, so every key's state outlives the run and all keys stay resident; the store's live key count is checked to equal the key count after the run). Peer: RLF as above. Every key consumed once before measuring; then ${s.rounds} interleaved rounds of ~${core.config.ms} ms, each decision on the next key round robin, awaited one at a time; "store.consume" is the synchronous store alone. Heap: store overhead per key, as above, measured at each size.`,
  );
  doc.p(
    table(
      [
        'keys',
        'sluice',
        'RLF',
        'sluice / RLF',
        'ns/decision (sluice | RLF)',
        'store.consume (sync)',
        'heap B/key sluice',
        'heap B/key RLF',
        'heap vs RLF',
        'rounds, M/s (sluice | RLF | store)',
      ],
      s.rows.map((r) => [
        count(r.keys),
        mps(r.sluice),
        mps(r.rlf),
        ratio(r.sluice / r.rlf),
        `${ns(r.sluice)} | ${ns(r.rlf)}`,
        `${mps(r.store)} (${ns(r.store)})`,
        bytes(r.heapSluice),
        bytes(r.heapRlf),
        ratio(r.heapSluice / r.heapRlf),
        `${rounds(r.sluiceRounds, 1e6, 2)} | ${rounds(r.rlfRounds, 1e6, 2)} | ${rounds(r.storeRounds, 1e6, 2)}`,
      ]),
    ),
  );
  doc.p(
    `Decisions/s at ${count(s.rows.at(-1)!.keys)} keys / at ${count(s.rows[0]!.keys)}: sluice ${s.flatness.sluice.toFixed(2)}, store.consume ${s.flatness.store.toFixed(2)}, RLF ${s.flatness.rlf.toFixed(2)}. Flat here means >= ${s.flatMinRatio} (cost per decision within 1.25x): ${s.verdict}.`,
  );
}
