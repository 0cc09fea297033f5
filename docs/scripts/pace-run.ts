/**
 * `pnpm bench:pace [--headers legacy] [--requests 1000] [--only paced|unpaced]`: one real-time
 * run of @sluice/client against a fresh sluice Express server (10 requests/s) for
 * docs/guide/client.md: 1,000 requests at once through `pacedFetch`, and through plain `fetch`
 * retrying after `Retry-After` at most 2 times (ky's default). Writes docs/data/pace-run*.json.
 */
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pacedFetch } from '@sluice/client';
import type { HeaderStyleName } from '@sluice/core/http';
import { Limit, MemoryStore, rateLimit } from '@sluice/express';
import express from 'express';

const { values: args } = parseArgs({
  options: {
    headers: { type: 'string', default: 'draft-8' },
    requests: { type: 'string', default: '1000' },
    only: { type: 'string', default: '' },
  },
});
const headers = args.headers as HeaderStyleName;
const requests = Number(args.requests);
const only = args.only;
const RATE = 10;

interface Answer {
  /** ms from the start of the run when the answer arrived. */
  t: number;
  status: number;
}

async function server(): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(
    rateLimit({ limit: Limit.perSecond(RATE).named('api'), headers, store: new MemoryStore() }),
  );
  app.get('/items', (_req, res) => {
    res.json({ ok: true });
  });
  // A backlog for 1,000 connections opened at once (the unpaced run).
  const s = app.listen(0, '127.0.0.1', 2048);
  await new Promise<void>((resolve) => s.once('listening', () => resolve()));
  const { port } = s.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/items`,
    close: () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  };
}

type Run = { answers: Answer[]; ms: number; failed: number };

/**
 * One run on a fresh server: `client(note)` makes the client (`note` records an answer's
 * status), then `requests` requests are sent through it at once; each says if it got a 200.
 */
async function run(
  client: (note: (status: number) => void) => (url: string) => Promise<boolean>,
): Promise<Run> {
  const { url, close } = await server();
  const answers: Answer[] = [];
  const start = performance.now();
  const send = client((status) => answers.push({ t: performance.now() - start, status }));
  let failed = 0;
  await Promise.all(
    Array.from({ length: requests }, async () => {
      if (!(await send(url))) failed++;
    }),
  );
  const ms = performance.now() - start;
  await close();
  return { answers, ms, failed };
}

const paced = () =>
  run((note) => {
    const observed: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      note(res.status);
      return res;
    };
    const api = pacedFetch(observed, { maxWait: 200_000 });
    return async (url) => {
      const res = await api(url);
      await res.arrayBuffer();
      return res.status === 200;
    };
  });

const unpaced = () =>
  run((note) => async (url) => {
    for (let attempt = 0; ; attempt++) {
      let status: number;
      let retryAfter: string | null = null;
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        status = res.status;
        retryAfter = res.headers.get('retry-after');
      } catch {
        status = 0; // a connection refused or reset: retried like a 429, as ky does
      }
      note(status);
      if (status === 200) return true;
      if (attempt === 2) return false;
      const after = Number(retryAfter ?? '1');
      await new Promise((r) => setTimeout(r, after * 1000));
    }
  });

const summary = (name: string, r: Run) => {
  const ok = r.answers.filter((a) => a.status === 200).length;
  const denied = r.answers.filter((a) => a.status === 429).length;
  const errors = r.answers.filter((a) => a.status === 0).length;
  const ideal = ((requests - RATE) / RATE) * 1000;
  return {
    name,
    requests,
    served: ok,
    denied429: denied,
    connectionErrors: errors,
    gaveUp: r.failed,
    seconds: Number((r.ms / 1000).toFixed(2)),
    idealSeconds: ideal / 1000,
    overIdealPercent: Number((((r.ms - ideal) / ideal) * 100).toFixed(2)),
  };
};

const out: Record<string, unknown> = {
  headers,
  rate: `${RATE}/s`,
  node: process.version,
  when: new Date().toISOString(),
};
for (const [name, measure, says] of [
  ['unpaced', unpaced, 'unpaced (ky-style retries after Retry-After, 2 at most)'],
  ['paced', paced, 'paced (pacedFetch)'],
] as const) {
  if (only !== '' && only !== name) continue;
  const r = await measure();
  out[name] = { ...summary(name, r), answers: r.answers.map((a) => [Math.round(a.t), a.status]) };
  console.log(summary(says, r));
}
const file = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'data',
  `pace-run${headers === 'draft-8' ? '' : `-${headers}`}.json`,
);
writeFileSync(file, `${JSON.stringify(out)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)}`);
