/** bench:redis's report: the JSON it writes, read by `pnpm bench`'s pages. */
import type { KeyUsageRow, PeerMemoryReport } from '../measure/redis-memory.js';
import type { OverLimitReport } from '../measure/redis-over-limit.js';

/** The JSON written by `--json` (read by `pnpm bench`'s report). */
export interface RedisReport {
  kind: 'redis';
  date: string;
  machine: { cores: number; cpu: string; node: string; redis: string; platform: string };
  config: {
    rounds: number;
    ms: number;
    keys: number;
    inFlight: number;
    sluice: string;
    rlf: string;
    /** Every peer of the memory rows (RLF first), as configured. */
    peers: { label: string; config: string }[];
    ceiling: string;
    /** The second ceiling: the same call of a script that only returns 1. */
    noopCeiling: string;
    /** The judged figures: sluice / RLF auto-pipelined, of the ceiling, auto / plain. */
    targets: { vsRlfAuto: number; ofCeiling: number; autoOfPlain: number };
  };
  throughput: {
    label: string;
    sluice: boolean;
    autoPipelining: boolean;
    rate: number;
    rounds: number[];
    vsRlfAuto: number;
    ofCeiling: number;
    /** sluice auto-pipelined only: its median / sluice without auto-pipelining's. */
    ofPlain: number | null;
    verdict: string;
  }[];
  ceiling: { rate: number; rounds: number[] };
  noopCeiling: { rate: number; rounds: number[] };
  memory: KeyUsageRow[];
  /** Keys over their limit, with and without the over-limit cache (see redis-over-limit.ts). */
  overLimit?: OverLimitReport;
  /** used_memory per subject, sluice and every peer (`--scale`). */
  peerMemory?: PeerMemoryReport;
  scale?: {
    config: string;
    rounds: number;
    ms: number;
    fillInFlight: number;
    flatMinRatio: number;
    flatness: { sluice: number; rlf: number };
    verdict: string;
    rows: {
      keys: number;
      sluice: number;
      rlf: number;
      sluiceRounds: number[];
      rlfRounds: number[];
      memSluice: number;
      memRlf: number;
      fillSluice: number;
      fillRlf: number;
    }[];
  };
  overall: string;
}
