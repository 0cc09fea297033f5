// bench:redis `--scale`: decisions/s and server memory per key over 1k, 100k and 1M resident
// keys (sluice and RLF), then used_memory per subject of sluice and every peer.
import type { RedisProcess } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { PEERS, RLF, sluice, subject } from '../cases/redis-peers.js';
import type { RedisReport } from '../report/types.js';
import { interleave, measureRate, median, RESIDENT_CONFIG, residentAlgo } from './common.js';
import {
  FILL_INFLIGHT,
  fill,
  peerMemorySection,
  settledUsedMemory,
  usedMemory,
} from './redis-memory.js';

/** sluice at scale: every key stays stored for the run. */
const SLUICE_RESIDENT = sluice('sluice RedisStore, GCRA', residentAlgo(), RESIDENT_CONFIG);

export interface ScaleOptions {
  /** Key counts, one row each. */
  keys: number[];
  rounds: number;
  ms: number;
  /** Calls in flight while measuring. */
  inflight: number;
  /** Subjects of the used_memory-per-subject rows. */
  peerKeys: number;
}

type ScaleRow = NonNullable<RedisReport['scale']>['rows'][number];

async function scaleAt(port: number, mem: Redis, n: number, o: ScaleOptions): Promise<ScaleRow> {
  const keys = Array.from({ length: n }, (_, i) => `user:${i}`);
  await mem.flushdb(); // our own server only
  const [s, r] = [await subject(port, SLUICE_RESIDENT, true), await subject(port, RLF, true)];
  try {
    await Promise.all([s.ping(), r.ping()]);
    const used0 = await usedMemory(mem);
    const fillSluice = await fill(s.consume, keys);
    const used1 = await settledUsedMemory(mem);
    const afterSluice = await mem.dbsize();
    if (afterSluice !== n) throw new Error(`scale ${n}: ${afterSluice} keys after sluice's fill`);
    const fillRlf = await fill(r.consume, keys);
    const used2 = await settledUsedMemory(mem);
    const afterRlf = await mem.dbsize();
    if (afterRlf !== 2 * n) throw new Error(`scale ${n}: ${afterRlf} keys after RLF's fill`);
    const [sluiceRounds, rlfRounds] = await interleave([s, r], o.rounds, (x) =>
      measureRate(x.consume, keys, o.ms, o.inflight),
    );
    return {
      keys: n,
      sluice: median(sluiceRounds),
      rlf: median(rlfRounds),
      sluiceRounds,
      rlfRounds,
      memSluice: (used1 - used0) / n,
      memRlf: (used2 - used1) / n,
      fillSluice,
      fillRlf,
    };
  } finally {
    await s.close();
    await r.close();
  }
}

/** `--scale`: decisions/s and used_memory per key at each of `--scale-keys`, then per subject. */
export async function scaleSection(
  server: RedisProcess,
  report: RedisReport,
  o: ScaleOptions,
): Promise<void> {
  const rows: ScaleRow[] = [];
  const client = new Redis({ port: server.port, host: '127.0.0.1' });
  try {
    for (const n of o.keys) {
      rows.push(await scaleAt(server.port, client, n, o));
      process.stderr.write(`scale ${n} keys done\n`);
    }
    await client.flushdb(); // our own server only
  } finally {
    client.disconnect();
  }
  report.scale = {
    config: RESIDENT_CONFIG,
    rounds: o.rounds,
    ms: o.ms,
    fillInFlight: FILL_INFLIGHT,
    rows,
  };

  report.peerMemory = await peerMemorySection(
    server.port,
    o.peerKeys,
    [SLUICE_RESIDENT, ...PEERS],
    o.rounds,
  );
}
