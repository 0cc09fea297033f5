// `pnpm bench:overload-simulation`: docs/data/overload-simulation.json (the adaptive page's plots) from
// test-kit's fake-clock simulation, the one core's simulation test holds to its targets (seed 1).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Limit } from '@sluice/core';
import { finishedBetween, quantile, type SimulationResult, simulate } from '@sluice/test-kit';
import { parseCommand } from './cli/args.js';

parseCommand({
  usage: 'pnpm bench:overload-simulation',
  summary:
    "Writes docs/data/overload-simulation.json, the adaptive page's plots, from the fake-clock simulation (seed 1).",
  options: {},
});

const SECONDS = 90;
const RATE = 800;
const SERVICE_MS = 20;
const workers = (t: number) => (t < 60_000 ? 8 : 4);

/** Per second: p99 latency (ms) and goodput (finished per s) of `r`. */
const perSecond = (r: SimulationResult) =>
  Array.from({ length: SECONDS }, (_, s) => {
    const done = finishedBetween(r, s * 1000, (s + 1) * 1000);
    const latencies = done.map((f) => f.latencyMs);
    return { s, p99: quantile(latencies, 0.99), goodput: done.length };
  });

const limit = Limit.adaptive({ loopDelay: false });
const gate = limit.adaptive!.controller;
const adaptive = simulate({
  seconds: SECONDS,
  ratePerSecond: RATE,
  workers,
  serviceMs: SERVICE_MS,
  gate,
});
const none = simulate({ seconds: SECONDS, ratePerSecond: RATE, workers, serviceMs: SERVICE_MS });
const data = {
  date: new Date().toISOString().slice(0, 10),
  config: {
    seconds: SECONDS,
    ratePerSecond: RATE,
    serviceMs: SERVICE_MS,
    workers: '8, then 4 from 60 s',
    seed: 1,
  },
  adaptive: perSecond(adaptive),
  none: perSecond(none),
  limit: adaptive.limits
    .filter(([t]) => t % 500 === 0)
    .map(([t, l]) => ({ s: t / 1000, limit: l })),
};
const out = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../docs/data/overload-simulation.json',
);
writeFileSync(out, `${JSON.stringify(data)}\n`);
console.log(`wrote ${path.relative(process.cwd(), out)}`);
