/**
 * bench:redis `--scale`: decisions/s and server memory per key over 1k, 100k and 1M resident
 * keys (sluice and RLF), then used_memory per subject of sluice and every peer.
 */
import type { RedisProcess } from '@sluice/test-kit';
import { Redis } from 'ioredis';
import { PEERS, RLF, sluice, subject } from '../cases/redis-peers.js';
import type { RedisReport } from '../report/redis-part.js';
import { measureRate, median, plainTable, RESIDENT_CONFIG, residentAlgo } from './common.js';
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

const fmtRate = (x: number) => `${(x / 1e3).toFixed(1)} k/s`;

interface ScaleRow {
  keys: number;
  sluice: number[];
  rlf: number[];
  /** used_memory delta per key after the fill, bytes. */
  memSluice: number;
  memRlf: number;
  /** Seconds to pre-fill the keys (each consumed once, FILL_INFLIGHT in flight). */
  fillSluice: number;
  fillRlf: number;
}

async function scaleAt(port: number, mem: Redis, n: number, o: ScaleOptions): Promise<ScaleRow> {
  const keys = Array.from({ length: n }, (_, i) => `user:${i}`);
  await mem.flushdb(); // our own server only
  const s = subject(port, SLUICE_RESIDENT, true);
  const r = subject(port, RLF, true);
  try {
    await Promise.all([s.client.ping(), r.client.ping()]);
    const used0 = await usedMemory(mem);
    const fillSluice = await fill(s.consume, keys);
    const used1 = await settledUsedMemory(mem);
    const afterSluice = await mem.dbsize();
    if (afterSluice !== n) throw new Error(`scale ${n}: ${afterSluice} keys after sluice's fill`);
    const fillRlf = await fill(r.consume, keys);
    const used2 = await settledUsedMemory(mem);
    const afterRlf = await mem.dbsize();
    if (afterRlf !== 2 * n) throw new Error(`scale ${n}: ${afterRlf} keys after RLF's fill`);
    for (let round = 0; round < o.rounds; round++) {
      s.rates.push(await measureRate(s.consume, keys, o.ms, o.inflight));
      r.rates.push(await measureRate(r.consume, keys, o.ms, o.inflight));
    }
    return {
      keys: n,
      sluice: s.rates,
      rlf: r.rates,
      memSluice: (used1 - used0) / n,
      memRlf: (used2 - used1) / n,
      fillSluice,
      fillRlf,
    };
  } finally {
    s.client.disconnect();
    r.client.disconnect();
  }
}

/** Flat: cost per decision at the most keys within 1.25x of that at the fewest (rate ratio >= 0.8). */
const FLAT_MIN_RATIO = 0.8;

/**
 * `--scale`: decisions/s and used_memory per key at each of `--scale-keys`, then used_memory
 * per subject of sluice and every peer; whether both verdicts passed.
 */
export async function scaleSection(
  server: RedisProcess,
  report: RedisReport,
  o: ScaleOptions,
): Promise<boolean> {
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
  const st = plainTable([
    'scale: keys',
    'sluice decisions/s',
    'RLF decisions/s',
    'sluice / RLF',
    'sluice used_memory B/key',
    'RLF used_memory B/key',
    'fill s (sluice | RLF)',
  ]);
  for (const row of rows) {
    st.push([
      row.keys.toLocaleString('en-US'),
      fmtRate(median(row.sluice)),
      fmtRate(median(row.rlf)),
      `${(median(row.sluice) / median(row.rlf)).toFixed(2)}x`,
      `${row.memSluice.toFixed(1)} B`,
      `${row.memRlf.toFixed(1)} B`,
      `${row.fillSluice.toFixed(1)} | ${row.fillRlf.toFixed(1)}`,
    ]);
  }
  console.log(st.toString());
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const flatness = {
    sluice: median(last.sluice) / median(first.sluice),
    rlf: median(last.rlf) / median(first.rlf),
  };
  const flatPass = flatness.sluice >= FLAT_MIN_RATIO;
  console.log(
    `scale: sluice RedisStore ${RESIDENT_CONFIG} (T = 1 h: every key stays in Redis), RLF as above, both auto-pipelining; keys pre-filled by consuming each once with ${FILL_INFLIGHT} calls in flight (sluice coalesces them into batched EVALSHA); used_memory = INFO memory delta over the fill / keys; median of ${o.rounds} interleaved rounds of ~${o.ms} ms, ${o.inflight} in flight over all keys round robin.`,
  );
  console.log(
    `flat (decisions/s at ${last.keys} keys / at ${first.keys} keys, >= ${FLAT_MIN_RATIO}): sluice ${flatness.sluice.toFixed(2)} ${flatPass ? 'PASS' : 'FAIL'}; RLF ${flatness.rlf.toFixed(2)} (info)`,
  );
  report.scale = {
    config: RESIDENT_CONFIG,
    rounds: o.rounds,
    ms: o.ms,
    fillInFlight: FILL_INFLIGHT,
    flatMinRatio: FLAT_MIN_RATIO,
    flatness,
    verdict: flatPass ? 'PASS' : 'FAIL',
    rows: rows.map((r) => ({
      keys: r.keys,
      sluice: median(r.sluice),
      rlf: median(r.rlf),
      sluiceRounds: r.sluice,
      rlfRounds: r.rlf,
      memSluice: r.memSluice,
      memRlf: r.memRlf,
      fillSluice: r.fillSluice,
      fillRlf: r.fillRlf,
    })),
  };

  console.log('');
  report.peerMemory = await peerMemorySection(
    server.port,
    o.peerKeys,
    [SLUICE_RESIDENT, ...PEERS],
    o.rounds,
  );
  return flatPass && report.peerMemory.verdict !== 'FAIL';
}
