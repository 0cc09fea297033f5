// `pnpm bench:profile -- <framework> <variant>…`: a server's CPU per request by where its code lives,
// under `node --cpu-prof` pinned like bench:http's; each column minus the first variant's. bench/profile.md reads it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RedisProcess } from '@sluice/test-kit';
import autocannon from 'autocannon';
import type { Framework, Variant } from './cases/http-apps.js';
import { parseCommand } from './cli/args.js';
import { canPin, pin, plainTable, spawnApp, stopChild, withRedis } from './measure/common.js';

const { values: args, positionals } = parseCommand({
  usage: 'pnpm bench:profile -- [options] <express|fastify|koa> <variant> [<variant> …]',
  summary:
    "Profile: where a limited request's server CPU goes, each variant's server under node --cpu-prof, µs per request by where the code lives.",
  positionals: '<framework> <variant> [<variant> …] (variants of ./cases/http-apps.ts)',
  minPositionals: 2,
  options: { seconds: { type: 'number', default: 5, help: 'seconds of load per variant' } },
});
const [framework, ...variants] = positionals as [Framework, Variant, ...Variant[]];
const SECONDS = args.seconds;
const PIN = canPin();

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  startTime: number;
  endTime: number;
}

/** Where a profile node's code lives. */
function place(functionName: string, url: string): string {
  if (functionName === '(idle)') return 'idle (waiting for I/O)';
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(program)') return 'V8 (program)';
  if (url.includes('/packages/redis/')) return 'sluice: @sluice/redis';
  if (url.includes('/packages/core/')) return 'sluice: @sluice/core';
  if (/\/packages\/(express|fastify|koa)\//.test(url)) return 'sluice: adapter';
  if (/ioredis|redis-parser|denque|standard-as-callback/.test(url)) return 'ioredis';
  if (/rate-limit|rate-limiter/.test(url)) return 'peer limiter';
  if (/fastify|koa|express|find-my-way|router/.test(url)) return 'framework';
  if (url.startsWith('node:')) return "Node's JavaScript";
  if (url === '') return `native: ${functionName}`;
  return 'other JavaScript';
}

/** µs per request by place, from the server's profile. */
function summarize(dir: string, requests: number): Map<string, number> {
  // The main thread's profile is the largest file (loader threads write small ones).
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .sort((a, b) => b.length - a.length)[0];
  if (file === undefined) throw new Error(`no profile written in ${dir}`);
  const profile = JSON.parse(file) as Profile;
  const usPerSample = (profile.endTime - profile.startTime) / profile.samples.length;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  for (const id of profile.samples) {
    const { functionName, url } = byId.get(id)!.callFrame;
    const key = place(functionName, url);
    out.set(key, (out.get(key) ?? 0) + usPerSample / requests);
  }
  return out;
}

/** Runs one variant's server under the profiler; µs per request by place. */
async function profileOne(variant: Variant, redis: RedisProcess | undefined) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sluice-prof-'));
  const node = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const { child, port } = await spawnApp(framework, variant, redis?.port, { pinned: PIN, node });
  const url = `http://127.0.0.1:${port}/`;
  const warm = await autocannon({ url, connections: 50, duration: 1 });
  const run = await autocannon({ url, connections: 50, duration: SECONDS });
  await stopChild(child, 'disconnect'); // it writes its profile as it exits
  const requests = warm.requests.total + run.requests.total;
  try {
    return { rps: run.requests.average, byPlace: summarize(dir, requests) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(redis: RedisProcess | undefined): Promise<void> {
  if (PIN) pin(process.pid, 0);
  if (PIN && redis !== undefined) pin(redis.pid, 0);
  const results: { variant: Variant; rps: number; byPlace: Map<string, number> }[] = [];
  for (const variant of variants) results.push({ variant, ...(await profileOne(variant, redis)) });
  const places = [...new Set(results.flatMap((r) => [...r.byPlace.keys()]))];
  const busy = (r: (typeof results)[number]) =>
    [...r.byPlace].reduce((sum, [k, v]) => (k.startsWith('idle') ? sum : sum + v), 0);
  const rows = [
    ['busy (all but idle)', ...results.map(busy)],
    ...places.map(
      (k) => [k, ...results.map((r) => r.byPlace.get(k) ?? 0)] as [string, ...number[]],
    ),
  ].sort((a, b) => (b[b.length - 1] as number) - (a[a.length - 1] as number));
  const last = results.length;
  const t = plainTable([
    'µs per request',
    ...results.map((r) => `${r.variant} (${Math.round(r.rps)} req/s)`),
    ...(last > 1 ? [`${results[last - 1]!.variant} - ${results[0]!.variant}`] : []),
  ]);
  for (const [label, ...xs] of rows as [string, ...number[]][]) {
    if (xs.every((x) => x < 0.02)) continue;
    const delta = last > 1 ? [(xs[last - 1]! - xs[0]!).toFixed(2)] : [];
    t.push([label, ...xs.map((x) => x.toFixed(2)), ...delta]);
  }
  console.log(
    `${framework}: server under node --cpu-prof${PIN ? ' on core 1' : ''}, autocannon 50 connections, 1 s warm-up + ${SECONDS} s; samples per request (the warm-up's requests counted too)\n${t.toString()}`,
  );
}

if (variants.some((v) => v.endsWith('-redis'))) await withRedis(main);
else await main(undefined);
