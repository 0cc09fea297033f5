// `pnpm bench:instructions -- <framework> <variant>…`: instructions per request of each
// variant's server, counted by valgrind's callgrind: steadier than req/s or CPU µs on a
// lightly loaded machine (those vary by ±15% from run to run), but not load-proof: with a
// full CI run beside it, two counts of one server differed by more than 4,000 requests cost
// (V8's compile and GC timing moves the totals), so the per-request figure came out negative.
// Run it on a machine that is otherwise idle, and count twice. Each server serves `--requests` after `--warm` requests, in one
// process per count; the difference of the two totals over the difference of the requests
// is the steady state (start-up, tsx and JIT warm-up cancel out). Under valgrind V8 is still
// compiling after 1,000 requests (1,000 to 3,000 counted 425 k a request, 2,000 to 6,000
// 160 k, on the same Hono server): keep `--warm` in the thousands.
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Framework, Variant } from './cases/http-apps.js';
import { parseCommand } from './cli/args.js';
import { plainTable, spawnApp, stopChild } from './measure/common.js';

const { values: args, positionals } = parseCommand({
  usage: 'pnpm bench:instructions -- [options] <framework> <variant> [<variant> …]',
  summary:
    "Instructions per request of each variant's server (valgrind --tool=callgrind), steadier than req/s on a quiet machine.",
  positionals: '<framework> <variant> [<variant> …] (variants of ./cases/http-apps.ts)',
  minPositionals: 2,
  options: {
    warm: { type: 'number', default: 4000, help: 'requests of the shorter run' },
    requests: { type: 'number', default: 4000, help: 'requests the longer run serves beyond it' },
  },
});
const [framework, ...variants] = positionals as [Framework, Variant, ...Variant[]];

/** The instructions one server process ran, serving `n` requests (10 connections). */
async function count(variant: Variant, n: number): Promise<number> {
  const out = path.join(os.tmpdir(), `sluice-callgrind-${process.pid}-${variant}-${n}`);
  const wrap = ['valgrind', '-q', '--tool=callgrind', `--callgrind-out-file=${out}`];
  const { child, port } = await spawnApp(framework, variant, undefined, { pinned: false, wrap });
  try {
    const url = `http://127.0.0.1:${port}/`;
    const r = await autocannon({ url, connections: 10, duration: 0, amount: n });
    if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${variant}: not every answer a 2xx`);
  } finally {
    await stopChild(child, 'SIGINT');
  }
  const totals = /^totals: (\d+)/m.exec(readFileSync(out, 'utf8'));
  rmSync(out, { force: true });
  if (totals === null) throw new Error(`${variant}: callgrind wrote no totals`);
  return Number(totals[1]);
}

const table = plainTable(['variant', 'instructions per request', `minus ${variants[0]}`]);
let first: number | undefined;
for (const variant of variants) {
  const [short, long] = [
    await count(variant, args.warm),
    await count(variant, args.warm + args.requests),
  ];
  const perRequest = (long - short) / args.requests;
  first ??= perRequest;
  table.push([
    variant,
    Math.round(perRequest).toLocaleString('en-US'),
    Math.round(perRequest - first).toLocaleString('en-US'),
  ]);
  process.stderr.write(`${variant} done\n`);
}
console.log(
  `${framework}: valgrind callgrind, ${args.warm} then ${args.warm + args.requests} requests (10 connections) per variant, Node ${process.version}`,
);
console.log(table.toString());
