/**
 * `pnpm bench:hono`: the Hono row. A Hono hello-world on Node (@hono/node-server), each
 * variant in its own process pinned to one core (`taskset -c 1`; autocannon here on core 0),
 * a new process every round, measured interleaved (A B C D A B C D …): Hono unlimited, the
 * headers-only floor, @sluice/hono and hono-rate-limiter (both memory stores, never denying,
 * keyed by the socket's address). Reports the medians of the rounds: requests/s, the ratio to
 * unlimited, the server's CPU per request and Δµs (limiter CPU per request minus unlimited).
 *
 * Self-contained (its own cases/hono-server.ts): to join `pnpm bench`, add `hono` to the
 * cases src/all.ts runs and read `--json`'s `rows` into the report (one row: "Hono, memory,
 * allow", sluice vs hono-rate-limiter, the floor and unlimited as baselines).
 *
 * Flags: `--rounds` (default 5), `--duration` (s, default 5), `--warmup` (s, default 1),
 * `--connections` (default 64), `--json <file>`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

/** The variants of cases/hono-server.ts, in the order they are measured. */
const HONO_VARIANTS = ['none', 'headers', 'sluice', 'peer'] as const;
type HonoVariant = (typeof HONO_VARIANTS)[number];

const here = path.dirname(fileURLToPath(import.meta.url));
const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const ROUNDS = flag('rounds', 5);
const DURATION = flag('duration', 5);
const WARMUP = flag('warmup', 1);
const CONNECTIONS = flag('connections', 64);
const jsonAt = process.argv.indexOf('--json');
const JSON_FILE = jsonAt === -1 ? undefined : process.argv[jsonAt + 1];
const pinned = os.cpus().length > 1 && process.platform === 'linux';

interface Server {
  child: ChildProcess;
  port: number;
  cpu(): Promise<number>;
  startCpu(): void;
}

function start(variant: HonoVariant): Promise<Server> {
  const args = ['--import', 'tsx', path.join(here, 'cases', 'hono-server.ts'), variant];
  const [cmd, argv] = pinned
    ? ['taskset', ['-c', '1', process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(cmd, argv as string[], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    cwd: path.join(here, '..'),
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hono-server ${variant} exited ${code}`)));
    child.once('message', (msg: { type: string; port: number }) => {
      resolve({
        child,
        port: msg.port,
        startCpu: () => child.send({ type: 'start' }),
        cpu: () =>
          new Promise((done) => {
            child.once('message', (m: { us: number }) => done(m.us));
            child.send({ type: 'stop' });
          }),
      });
    });
  });
}

async function measure(variant: HonoVariant) {
  const server = await start(variant);
  try {
    const url = `http://127.0.0.1:${server.port}/`;
    await autocannon({ url, connections: CONNECTIONS, duration: WARMUP });
    server.startCpu();
    const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION });
    const us = await server.cpu();
    if (r.non2xx > 0 || r.errors > 0)
      throw new Error(`${variant}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.total / r.duration, cpuUs: us / r.requests.total };
  } finally {
    server.child.removeAllListeners('exit');
    server.child.kill('SIGINT');
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const rounds: Record<HonoVariant, { rps: number; cpuUs: number }[]> = {
  none: [],
  headers: [],
  sluice: [],
  peer: [],
};
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of HONO_VARIANTS) rounds[variant].push(await measure(variant));
}
const names: Record<HonoVariant, string> = {
  none: 'Hono, unlimited',
  headers: 'Hono, headers only (floor)',
  sluice: '@sluice/hono',
  peer: 'hono-rate-limiter',
};
const base = rounds.none;
const rows = HONO_VARIANTS.map((variant) => {
  const r = rounds[variant];
  const ratio = median(r.map((x, i) => x.rps / base[i]!.rps));
  const cpu = median(r.map((x) => x.cpuUs));
  return {
    variant,
    name: names[variant],
    rps: Math.round(median(r.map((x) => x.rps))),
    ratio: Number(ratio.toFixed(3)),
    cpuUsPerRequest: Number(cpu.toFixed(2)),
    deltaUs: Number((cpu - median(base.map((x) => x.cpuUs))).toFixed(2)),
  };
});
console.log(
  `Hono on Node ${process.version}, ${ROUNDS} rounds x ${DURATION} s, ${CONNECTIONS} connections${pinned ? ', server pinned to core 1' : ''}`,
);
console.log('| variant | req/s | vs unlimited | CPU µs/req | Δµs |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(`| ${r.name} | ${r.rps} | ${r.ratio} | ${r.cpuUsPerRequest} | ${r.deltaUs} |`);
const sluice = rows.find((r) => r.variant === 'sluice')!;
const peer = rows.find((r) => r.variant === 'peer')!;
console.log(`sluice / hono-rate-limiter: ${(sluice.rps / peer.rps).toFixed(2)}x req/s`);
if (JSON_FILE !== undefined) {
  writeFileSync(
    JSON_FILE,
    JSON.stringify(
      { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, rows, raw: rounds },
      null,
      2,
    ),
  );
}
