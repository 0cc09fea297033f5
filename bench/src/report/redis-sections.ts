import { bytes, code, count, type Doc, kps, pct, ratio, rounds, table } from './format.js';
import type { RedisReport } from './redis-part.js';
import { partCommand, type RunInfo } from './types.js';

/** The Redis part's sections, in the order the page shows them. */
export function redisSections(doc: Doc, run: RunInfo, redis: RedisReport): void {
  redisSection(doc, run, redis);
  if (redis.peerMemory !== undefined) redisPeerMemorySection(doc, redis.peerMemory);
  if (redis.scale !== undefined) redisScaleSection(doc, redis, redis.scale);
}

/** bench:redis: its configuration, decisions/s beside the EVALSHA ceiling, bytes per key. */
function redisSection(doc: Doc, run: RunInfo, redis: RedisReport): void {
  doc.p('## Redis', `Command: ${code(partCommand(run, 'redis'))}`);
  const t = redis.config.targets;
  doc.p(
    'Configuration:',
    `- sluice: ${redis.config.sluice}`,
    ...redis.config.peers.map((x) => `- peer: ${x.config}`),
    `- decisions/s: sluice and RLF (the other peers are in the memory rows and in the HTTP section); one ioredis connection per subject, ${redis.config.inFlight} consumes in flight (one async worker per slot), ${count(redis.config.keys)} keys round robin; ${redis.config.rounds} interleaved rounds of ~${redis.config.ms} ms after an unmeasured warm-up; with and without ioredis ${code('enableAutoPipelining')}. The limits never deny.`,
    `- ceiling, run once per round in the same run: ${code(redis.config.ceiling)}: the most single-decision calls of sluice's own GCRA script the server takes, pipelined 16 deep; and ${code(redis.config.noopCeiling)}, the same call of a script that only returns 1: what any script call costs the server, so the difference is the GCRA script's own work.`,
    `- verdicts (sluice): >= ${t.vsRlfAuto}x RLF auto-pipelined; >= ${pct(t.ofCeiling)} of the GCRA ceiling; auto-pipelined: no slower than without, i.e. its median >= ${t.autoOfPlain}x the plain median (${pct(1 - t.autoOfPlain)} for round-to-round noise). Each is PASS or FAIL and a FAIL fails the part.`,
  );
  const rlfAuto = redis.throughput.find((r) => !r.sluice && r.autoPipelining);
  const gcraUs = 1e6 / redis.ceiling.rate;
  const noopUs = 1e6 / redis.noopCeiling.rate;
  doc.p(
    table(
      [
        'decisions/s',
        'rate',
        'RLF auto-pipelined beside it',
        'ratio',
        'of EVALSHA ceiling',
        'auto / plain',
        'verdict',
        'rounds, k/s',
      ],
      [
        ...redis.throughput.map((r) => [
          r.label,
          kps(r.rate),
          rlfAuto === undefined ? '-' : kps(rlfAuto.rate),
          ratio(r.vsRlfAuto),
          pct(r.ofCeiling),
          r.ofPlain === null ? '-' : ratio(r.ofPlain),
          r.verdict,
          rounds(r.rounds, 1e3, 1),
        ]),
        [
          'ceiling: redis-benchmark -P 16, EVALSHA gcra',
          kps(redis.ceiling.rate),
          '-',
          '-',
          '100%',
          '-',
          '(info)',
          rounds(redis.ceiling.rounds, 1e3, 1),
        ],
        [
          "redis-benchmark -P 16, EVALSHA 'return 1', the same arguments",
          kps(redis.noopCeiling.rate),
          '-',
          '-',
          pct(redis.noopCeiling.rate / redis.ceiling.rate),
          '-',
          '(info)',
          rounds(redis.noopCeiling.rounds, 1e3, 1),
        ],
      ],
    ),
  );
  doc.p(
    `Per call, the server spends ${gcraUs.toFixed(2)} µs on the GCRA script call and ${noopUs.toFixed(2)} µs on a script call that does nothing: ${(gcraUs - noopUs).toFixed(2)} µs (${pct((gcraUs - noopUs) / gcraUs)}) is the GCRA script's own work. sluice can pass the ceiling: it coalesces concurrent decisions into one script call.`,
  );
  doc.p(
    'Bytes per key: `MEMORY USAGE` of what one decision of each limiter writes (FLUSHDB, one decision on `user:1`, then every key the server holds, as stored; a reply of null or 0 fails the run).',
    table(
      ['MEMORY USAGE, one decision', 'Redis key(s)', 'bytes', 'verdict (<= 100 B; aim <= 56 B)'],
      redis.memory.map((x) => [x.label, code(x.key), `${x.bytes} B`, x.verdict]),
    ),
  );
}

/** bench:redis --scale: used_memory per subject of sluice and every peer. */
function redisPeerMemorySection(doc: Doc, m: NonNullable<RedisReport['peerMemory']>): void {
  const sluice = m.rows.find((r) => r.sluice)!;
  doc.p(
    `### Redis used_memory per subject, every peer (${count(m.keys)} subjects)`,
    `Per limiter and round: FLUSHDB, then each of ${count(m.keys)} subjects ${code('user:<i>')} consumed once (${m.fillInFlight} calls in flight, a client of its own with auto-pipelining, closed before the second reading), INFO memory ${code('used_memory')} before and after (read once it stops moving: a dictionary that grew is rehashed incrementally), delta / subjects; DBSIZE after each fill (keys/subject); ${m.rounds} interleaved rounds after an unmeasured fill of a tenth as many, medians. sluice runs its resident GCRA (T = 1 h, so every key stays); the peers as configured above (60 s windows, far longer than a fill). The key text is part of the figure (example keys below).`,
  );
  doc.p(
    table(
      [
        'limiter',
        'B/subject',
        'vs sluice',
        'keys (DBSIZE)',
        'keys/subject',
        'example key',
        'fill s',
        'rounds, B',
      ],
      m.rows.map((r) => [
        r.label,
        bytes(r.bytesPerKey),
        r.sluice ? '-' : ratio(r.bytesPerKey / sluice.bytesPerKey),
        count(r.dbsize),
        r.keysPerSubject.toFixed(2),
        code(r.exampleKey),
        r.fillSeconds.toFixed(1),
        rounds(r.rounds, 1, 1),
      ]),
    ),
  );
  doc.p(
    `sluice <= the best peer (${m.best}, + ${m.toleranceB} B, the spread between fills of one limiter): ${m.verdict} (sluice ${bytes(sluice.bytesPerKey)}).`,
  );
}

/** bench:redis --scale: decisions/s and used_memory per key at each size. */
function redisScaleSection(
  doc: Doc,
  redis: RedisReport,
  s: NonNullable<RedisReport['scale']>,
): void {
  doc.p(
    '### Redis at scale',
    `sluice: RedisStore with ${code(s.config)} (T = 1 h: every key stays in Redis; the server's DBSIZE is checked after each fill), RLF as above, both with auto-pipelining. Per size: FLUSHDB, then each limiter consumes every key once with ${s.fillInFlight} calls in flight (sluice coalesces them into batched EVALSHA calls), INFO memory ${code('used_memory')} read before and after each fill (delta / keys, so it includes the server's dictionary and expiry overhead, unlike MEMORY USAGE); then ${s.rounds} interleaved rounds of ~${s.ms} ms, ${redis.config.inFlight} in flight over all keys round robin.`,
  );
  doc.p(
    table(
      [
        'keys',
        'sluice',
        'RLF',
        'sluice / RLF',
        'used_memory B/key sluice',
        'used_memory B/key RLF',
        'fill seconds (sluice | RLF)',
        'rounds, k/s (sluice | RLF)',
      ],
      s.rows.map((r) => [
        count(r.keys),
        kps(r.sluice),
        kps(r.rlf),
        ratio(r.sluice / r.rlf),
        bytes(r.memSluice),
        bytes(r.memRlf),
        `${r.fillSluice.toFixed(1)} | ${r.fillRlf.toFixed(1)}`,
        `${rounds(r.sluiceRounds, 1e3, 1)} | ${rounds(r.rlfRounds, 1e3, 1)}`,
      ]),
    ),
  );
  doc.p(
    `Decisions/s at ${count(s.rows.at(-1)!.keys)} keys / at ${count(s.rows[0]!.keys)}: sluice ${s.flatness.sluice.toFixed(2)}, RLF ${s.flatness.rlf.toFixed(2)}. Flat here means >= ${s.flatMinRatio}: ${s.verdict}. At ${count(s.rows[0]!.keys)} keys the used_memory delta is small next to the server's own allocations, so that row's bytes per key is the least precise.`,
  );
}
