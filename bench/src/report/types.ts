// What each part's `--json` writes (figures only; verdicts come from verdicts.ts) and the run.
import type { Variant } from '../cases/http-apps.js';
import type { Framework } from '../cases/http-cases.js';
import type { AiFigures } from '../measure/ai.js';
import type { machine } from '../measure/common.js';
import type { OperationsFigures } from '../measure/core-operations.js';
import type { OverLimitReport } from '../measure/redis-over-limit.js';

/** The machine, as each part's JSON reports it. */
export type Machine = ReturnType<typeof machine>;

/** What bench:core and bench:redis ran: rounds, ms per figure, keys, calls in flight, subjects. */
interface PartConfig {
  rounds: number;
  ms: number;
  keys: number;
  inFlight: number;
  sluice: string;
  rlf: string;
}

/** bench:core (its memory-store rows, heap and scale) and, `--peers-only`, every peer. */
export interface CoreReport {
  kind: 'core';
  date: string;
  machine: Machine;
  config: PartConfig;
  /** Decisions/s, medians and every round; `judged`: held to sluice / RLF >= targets' vsRlf. */
  throughput: {
    label: string;
    judged: boolean;
    sluice: number;
    rlf: number;
    sluiceRounds: number[];
    rlfRounds: number[];
  }[];
  heap: { name: string; keys: number; overhead: number; withKeys: number }[];
  /** The operations section (measure/core-operations.ts): ns added per decision, per top-K update. */
  operations?: OperationsFigures;
  /** The @sluice/ai section (measure/ai.ts): estimate, charge and consume, CPU ns per call. */
  ai?: AiFigures;
  scale?: {
    config: string;
    rounds: number;
    rows: {
      keys: number;
      sluice: number;
      rlf: number;
      store: number;
      sluiceRounds: number[];
      rlfRounds: number[];
      storeRounds: number[];
      heapSluice: number;
      heapRlf: number;
      liveKeys: number;
    }[];
  };
  /** sluice vs every peer's in-memory store (measure/core-peers.ts). */
  peers?: PeersReport;
}

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
}

/** bench:redis. */
export interface RedisReport {
  kind: 'redis';
  date: string;
  machine: Machine & { redis: string };
  config: PartConfig & {
    /** Every peer of the memory rows (RLF first), as configured. */
    peers: { label: string; config: string }[];
    ceiling: string;
    /** The same call of a script that only returns 1. */
    noopCeiling: string;
  };
  /** `sluice`: sluice on ioredis (the judged rows); other clients are named in the label. */
  throughput: {
    label: string;
    sluice: boolean;
    autoPipelining: boolean;
    rate: number;
    rounds: number[];
  }[];
  ceiling: { rate: number; rounds: number[] };
  noopCeiling: { rate: number; rounds: number[] };
  /** MEMORY USAGE of what one decision writes; `key`: the key(s), comma-separated. */
  memory: { label: string; sluice: boolean; key: string; bytes: number }[];
  /** Keys over their limit, with and without the over-limit cache (redis-over-limit.ts). */
  overLimit?: OverLimitReport;
  /** used_memory per subject, sluice (first) and every peer (`--scale`). */
  peerMemory?: {
    keys: number;
    rounds: number;
    fillInFlight: number;
    rows: {
      label: string;
      config: string;
      sluice: boolean;
      /** used_memory delta over the fill / subjects: median, and per round. */
      bytesPerKey: number;
      rounds: number[];
      /** DBSIZE after the fill, and over the subjects. */
      dbsize: number;
      keysPerSubject: number;
      /** One of its keys (RANDOMKEY), to show the key text counted in the figure. */
      exampleKey: string;
      fillSeconds: number;
    }[];
  };
  scale?: {
    config: string;
    rounds: number;
    ms: number;
    fillInFlight: number;
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
}

/** One server's figures in a bench:http case (medians, and every round). */
export interface HttpRow {
  /** 'unlimited', 'sluice' or the peer's name. */
  limiter: string;
  role: 'unlimited' | 'sluice' | 'peer' | 'baseline';
  variant: Variant;
  rps: number;
  rpsRounds: number[];
  /** limited / unlimited req/s, median of the per-round ratios (null for unlimited). */
  ratio: number | null;
  ratioRounds: number[] | null;
  /** Server CPU (user + system) per request, µs. */
  cpuUs: number;
  cpuUsRounds: number[];
  /** Median of (limited - unlimited CPU µs per request) per round (null for unlimited). */
  deltaUs: number | null;
  /** Median of (unlimited / limited CPU per request) per round (null for unlimited). */
  cpuRatio: number | null;
  /** Server CPU time / wall time. */
  busy: number;
  busyRounds: number[];
  /** Redis script calls per request; null without Redis. */
  redisCalls: number | null;
  redisCallsRounds: number[] | null;
  /** The redis-server's CPU per request, µs; null without Redis. */
  redisCpuUs: number | null;
  /** Status and rate-limit header names of the first response. */
  probe: string;
}

export interface HttpCase {
  id: string;
  title: string;
  framework: Framework;
  /** Unlimited, sluice, then the peers (and baselines). */
  rows: HttpRow[];
}

/** bench:http. */
export interface HttpReport {
  kind: 'http';
  date: string;
  machine: Machine;
  config: {
    rounds: number;
    duration: number;
    warmup: number;
    connections: number;
    pinned: boolean;
    pinning: string;
    sluice: string;
    peers: string;
    redis: { version: string; port: number; client: string; pinning: string } | null;
    /** 1/5/15-minute load averages at the start and the end. */
    loadStart: number[];
    loadEnd: number[];
  };
  cases: HttpCase[];
}

/** The outcome part (give-backs and leases, ../outcome.ts). */
export interface OutcomeReport {
  rows: {
    store: 'memory' | 'redis';
    path: 'allow' | 'refund' | 'lease';
    rounds: number[];
    median: number;
  }[];
  rounds: number;
  ms: number;
}

/** The stores part (PostgreSQL, SQLite and Redis stores beside their peers, ../stores.ts). */
export interface StoresReport {
  keys: number;
  inflight: number;
  rounds: number;
  ms: number;
  rows: {
    store: 'postgres' | 'sqlite' | 'redis';
    subject: string;
    /** Whether this row is sluice's own store judged against its floor. */
    judged: boolean;
    decisionsPerSecond: number;
    rounds: number[];
  }[];
}

/** One variant of one framework in bench:http:inproc (../http-inproc.ts): CPU ns per request. */
export interface InprocRow {
  variant: Variant;
  /** 'unlimited', 'sluice', the peer's name or a baseline's label. */
  label: string;
  /** Status and rate-limit header names of the first response. */
  probe: string;
  /** CPU ns per request of each batch, by round. */
  batches: number[];
  meanNs: number;
  /** Mean minus the unlimited variant's mean. */
  deltaNs: number;
  /** Median and quartiles of the per-round paired Δ (this batch minus unlimited's). */
  deltaMedian: number;
  deltaQ1: number;
  deltaQ3: number;
  /** Unlimited / this variant's mean CPU per request. */
  ratio: number;
  /** X / (X + Δ), X the unlimited server's CPU µs per request over HTTP (`httpUs`). */
  httpRatio: number;
}

/** bench:http:inproc: each framework's request listener driven without sockets. */
export interface InprocReport {
  machine: Machine;
  pinned: boolean;
  batch: number;
  rounds: number;
  /** The unlimited server's CPU µs per request over HTTP, per framework (`--http-us`). */
  httpUs: Partial<Record<Framework, number>>;
  /** The 1-minute load average at the start and at the end. */
  load: [number, number];
  /** Per framework, its variants in the order measured (`none`, the unlimited server, first). */
  results: Partial<Record<Framework, InprocRow[]>>;
}

export interface PartRun {
  name: 'core' | 'peers' | 'redis' | 'http' | 'inproc' | 'outcome' | 'stores';
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
  inproc?: InprocReport;
  outcome?: OutcomeReport;
  stores?: StoresReport;
}
