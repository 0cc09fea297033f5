// The operations section of `pnpm bench:core`: what an operator's entries add
// to a decision: the snapshot lookup of a request's IP against 100,000 CIDRs (half IPv6),
// wildcard user and key subjects (10,000 patterns, compiled once per change: target
// <= 0.5 us p50 per decision, docs/guide/operating.md), and top-K (Space-Saving, k = 1024)
// per denied request. CPU time (process.cpuUsage), so a
// loaded machine moves the figures less than wall time would.
import { CidrSet } from '../../../packages/core/src/operations/cidr.js';
import { MemoryOperationsSync } from '../../../packages/core/src/operations/memory-sync.js';
import { OperationsSnapshot } from '../../../packages/core/src/operations/snapshot.js';
import { SpaceSaving } from '../../../packages/core/src/operations/top-k.js';

export interface OperationsFigures {
  cidrs: number;
  /** p50 / p90 ns added per decision by the snapshot (live + check) with `cidrs` deny CIDRs. */
  lookupP50Ns: number;
  lookupP90Ns: number;
  /** The same with no entry in force (the price every decision pays). */
  idleP50Ns: number;
  /** ns per Space-Saving update on a Zipf(1.1) stream over 100k subjects. */
  topKNsPerUpdate: number;
  /** Wildcard patterns in force (bans and overrides of users and keys; see measurePatterns). */
  patterns: number;
  /** p50 / p90 ns per decision (live + check) against them, half the requests matching one. */
  patternP50Ns: number;
  patternP90Ns: number;
}

/** What {@link measurePatterns} measures. */
export type PatternFigures = Pick<OperationsFigures, 'patterns' | 'patternP50Ns' | 'patternP90Ns'>;

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const cpuNs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};

/** p50 and p90 of ns per call over `batches` batches of `size` calls of `fn(i)`. */
function perCall(fn: (i: number) => unknown, batches: number, size: number): [number, number] {
  const samples: number[] = [];
  let sink = 0;
  for (let b = 0; b < batches; b++) {
    const start = cpuNs();
    for (let i = 0; i < size; i++) if (fn(b * size + i) !== undefined) sink++;
    samples.push((cpuNs() - start) / size);
  }
  if (sink < 0) console.log(sink);
  samples.sort((a, c) => a - c);
  return [samples[Math.floor(samples.length / 2)]!, samples[Math.floor(samples.length * 0.9)]!];
}

export async function measureOperations(cidrCount = 100_000): Promise<OperationsFigures> {
  const rand = rng(7);
  const byte = () => Math.floor(rand() * 256);
  const hex = () => Math.floor(rand() * 0x10000).toString(16);
  const sync = new MemoryOperationsSync();
  const entries = [];
  for (let i = 0; i < cidrCount; i++) {
    const cidr = i % 2 === 0 ? `${byte()}.${byte()}.${byte()}.0/24` : `2001:${hex()}:${hex()}::/48`;
    entries.push({
      id: `deny:cidr:${i}`,
      kind: 'deny' as const,
      subject: { cidr },
      until: null,
      at: 0,
    });
  }
  // canonical forms are what the store keeps; these are already canonical but for zeros
  const set = new CidrSet(entries.map((e) => [e.subject.cidr, e] as const));
  if (set.size !== cidrCount) throw new Error('CIDR set size');
  for (const e of entries) await sync.put('sl', e);
  const snapshot = new OperationsSnapshot(sync, 'sl');
  const idle = new OperationsSnapshot(new MemoryOperationsSync(), 'sl');
  const ips: string[] = [];
  for (let i = 0; i < 4096; i++) {
    ips.push(
      i % 2 === 0 ? `${byte()}.${byte()}.${byte()}.${byte()}` : `2001:${hex()}:${hex()}::${hex()}`,
    );
  }
  const now = Date.now();
  snapshot.live(now);
  idle.live(now);
  const decide = (s: OperationsSnapshot) => (i: number) =>
    s.live(now) ? s.check(ips[i & 4095], undefined, undefined) : undefined;
  // warm-up, then measure
  perCall(decide(snapshot), 50, 10_000);
  const [lookupP50Ns, lookupP90Ns] = perCall(decide(snapshot), 200, 10_000);
  perCall(decide(idle), 50, 10_000);
  const [idleP50Ns] = perCall(decide(idle), 200, 10_000);

  // top-K: a Zipf(1.1) stream over 100k subjects
  const n = 100_000;
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** 1.1;
    cdf[i] = sum;
  }
  const subjects = Array.from(
    { length: n },
    (_, i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  );
  const stream: string[] = new Array(1_000_000);
  for (let i = 0; i < stream.length; i++) {
    const u = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    stream[i] = subjects[lo]!;
  }
  new SpaceSaving(1024); // warm the class
  const top = new SpaceSaving(1024);
  const [topKNsPerUpdate] = perCall((i) => top.add(stream[i % stream.length]!), 100, 10_000);
  return {
    cidrs: cidrCount,
    lookupP50Ns,
    lookupP90Ns,
    idleP50Ns,
    topKNsPerUpdate,
    ...(await measurePatterns()),
  };
}

/**
 * A decision's cost with `count` wildcard entries in force: a quarter user bans by prefix
 * (`plan{i}_*`), a quarter user overrides by suffix (`*@corp{i}.example`), a quarter key bans
 * with both ends (`tenant:{i}:*:bot`), a quarter key overrides with a middle
 * (`job:{i}:*:retry:*`); each request asks with a user id and a key, half of them matching
 * one pattern, the other half none (every tree walked to its end).
 */
export async function measurePatterns(count = 10_000): Promise<PatternFigures> {
  const sync = new MemoryOperationsSync();
  const until = Date.now() + 3_600_000;
  for (let i = 0; i < count; i++) {
    const at = 0;
    const kind = i % 4;
    if (kind === 0) {
      await sync.put('sl', {
        id: `b${i}`,
        kind: 'ban',
        subject: { user: `plan${i}_*` },
        until,
        at,
      });
    } else if (kind === 1) {
      const subject = { user: `*@corp${i}.example` };
      await sync.put('sl', { id: `o${i}`, kind: 'override', subject, until, at, limit: '5/1m' });
    } else if (kind === 2) {
      await sync.put('sl', {
        id: `b${i}`,
        kind: 'ban',
        subject: { key: `tenant:${i}:*:bot` },
        until,
        at,
      });
    } else {
      const subject = { key: `job:${i}:*:retry:*` };
      await sync.put('sl', { id: `o${i}`, kind: 'override', subject, until, at, limit: '5/1m' });
    }
  }
  const snapshot = new OperationsSnapshot(sync, 'sl');
  const rand = rng(11);
  const asks: [string, string][] = [];
  for (let i = 0; i < 4096; i++) {
    const n = Math.floor(rand() * count);
    const hit = i % 2 === 0;
    const kind = n % 4;
    const user =
      hit && kind === 0
        ? `plan${n}_${i}`
        : hit && kind === 1
          ? `u${i}@corp${n}.example`
          : `member_${n}@corp.example`;
    const key =
      hit && kind === 2
        ? `tenant:${n}:${i}:bot`
        : hit && kind === 3
          ? `job:${n}:${i}:retry:2`
          : `tenant:${n}:${i}:app`;
    asks.push([user, key]);
  }
  const now = Date.now();
  snapshot.live(now);
  await snapshot.refresh();
  const matched = asks.filter(([u, k]) => snapshot.check(undefined, u, k) !== undefined).length;
  if (matched !== 2048) throw new Error(`patterns matched ${matched} of 4096 asks, not half`);
  const decide = (i: number) => {
    const [user, key] = asks[i & 4095]!;
    return snapshot.live(now) ? snapshot.check(undefined, user, key) : undefined;
  };
  perCall(decide, 50, 10_000);
  const [patternP50Ns, patternP90Ns] = perCall(decide, 200, 10_000);
  return { patterns: count, patternP50Ns, patternP90Ns };
}

/**
 * Runs the section alone: `node --import tsx bench/src/measure/core-operations.ts`; with
 * `--patterns`, only the wildcard row.
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const f = process.argv.includes('--patterns')
    ? await measurePatterns()
    : await measureOperations();
  console.log(JSON.stringify(f));
}
