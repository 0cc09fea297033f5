// `pnpm bench:http:inproc`: CPU ns a limiter adds per request, in-process (the framework's listener on
// an in-memory socket): bench:http's precise companion, since its req/s ratios swing by several %.
import { IncomingMessage, type RequestListener, ServerResponse } from 'node:http';
import os from 'node:os';
import { Duplex } from 'node:stream';
import { BUILDERS, FRAMEWORKS, type Framework, type Variant } from './cases/http-apps.js';
import { BASELINES, GROUPS } from './cases/http-cases.js';
import { parseCommand, shared } from './cli/args.js';
import { canPin, machine, mean, median, pin, quantile } from './measure/common.js';
import { inprocVerdict } from './report/inproc.js';
import { finishPart } from './report/render.js';
import type { InprocReport, InprocRow } from './report/types.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:http:inproc -- [options]',
  summary:
    "HTTP in-process: the CPU each limiter adds to one request, each framework's request listener driven without sockets or a load generator.",
  options: {
    only: { type: 'string', help: 'framework names (express, fastify, koa, hono)' },
    variants: {
      type: 'string',
      default: 'none,sluice,peer,noop,headers,sluice-bare',
      help: 'variants, `none` first (also sluice-metrics; Fastify: sluice-async, sluice-plan)',
    },
    batch: { type: 'number', default: 2000, help: 'requests per batch' },
    rounds: shared.rounds(100),
    'http-us': {
      type: 'string',
      default: 'express=60,fastify=13,koa=14.6,hono=20',
      help: "the unlimited server's CPU µs per request over HTTP, per framework",
    },
    json: shared.json,
  },
});
const { batch: BATCH, rounds: ROUNDS } = args;
const VARIANTS = args.variants.split(',') as Variant[];
if (VARIANTS[0] !== 'none') throw new Error('--variants: the first variant must be none');
const HTTP_US = Object.fromEntries(
  args['http-us'].split(',').map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]),
) as Record<Framework, number>;

/** Each variant's label: bench:http's (its cases and baselines), and the in-process extras. */
const LABELS: Partial<Record<Variant, string>> = {
  none: 'unlimited',
  sluice: 'sluice',
  ...Object.fromEntries(BASELINES),
  'sluice-metrics': 'sluice, metrics: true (OpenTelemetry SDK)',
  'sluice-async': 'sluice, limit from an async function',
  'sluice-plan': 'sluice, plan from lru-cache fetch (async)',
};
/** The framework's usual limiter: the peer of bench:http's memory case. */
const peerOf = (f: Framework) =>
  GROUPS.find((g) => g.id === `${f}-memory`)!.limited.find(([v]) => v === 'peer')![1];

/** A socket that keeps nothing: what the response writes is counted and dropped. */
class NullSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remoteFamily = 'IPv4';
  readonly remotePort = 40000;
  readonly encrypted = false;
  written = '';
  keep = false;
  override _read(): void {}
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    if (this.keep) this.written += chunk.toString();
    cb();
  }
}

const REQUEST_HEADERS = {
  host: '127.0.0.1:3000',
  'user-agent': 'sluice-bench',
  accept: '*/*',
  connection: 'keep-alive',
};

/** Serves `n` GET / requests one after the other on one socket (a keep-alive connection). */
function serve(listener: RequestListener, socket: NullSocket, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let left = n;
    const one = (): void => {
      if (left-- === 0) {
        resolve();
        return;
      }
      const req = new IncomingMessage(socket as never);
      req.method = 'GET';
      req.url = '/';
      req.httpVersionMajor = 1;
      req.httpVersionMinor = 1;
      req.httpVersion = '1.1';
      req.headers = { ...REQUEST_HEADERS };
      req.rawHeaders = Object.entries(REQUEST_HEADERS).flat();
      req.complete = true;
      req.push(null);
      const res = new ServerResponse(req);
      res.shouldKeepAlive = true;
      res.assignSocket(socket as never);
      res.on('finish', () => {
        res.detachSocket(socket as never);
        setImmediate(one);
      });
      try {
        listener(req, res);
      } catch (err) {
        reject(err);
      }
    };
    one();
  });
}

/** The status line and rate-limit header names of one response of `listener`. */
async function probe(listener: RequestListener): Promise<string> {
  const socket = new NullSocket();
  socket.keep = true;
  await serve(listener, socket, 1);
  const head = socket.written.split('\r\n\r\n')[0]!.split('\r\n');
  const names = head
    .slice(1)
    .map((h) => h.slice(0, h.indexOf(':')))
    .filter((h) => /ratelimit|retry-after/i.test(h));
  return `${head[0]!.replace('HTTP/1.1 ', '')} ${names.join(', ') || '(no rate-limit headers)'}`;
}

/** Each variant's rows: CPU ns per request of each batch (`batches`, by round), and against `none`. */
async function measure(framework: Framework): Promise<InprocRow[]> {
  const listeners: RequestListener[] = [];
  const probes: string[] = [];
  for (const v of VARIANTS) {
    const listener = await (await BUILDERS[framework](v)).listener();
    listeners.push(listener);
    probes.push(await probe(listener));
  }
  const socket = new NullSocket();
  // Warm-up: every variant optimised before the first measurement.
  for (let w = 0; w < 5; w++) for (const l of listeners) await serve(l, socket, BATCH);
  const batches = VARIANTS.map((): number[] => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let j = 0; j < VARIANTS.length; j++) {
      const k = (j + r) % VARIANTS.length;
      const start = process.cpuUsage();
      await serve(listeners[k]!, socket, BATCH);
      const used = process.cpuUsage(start);
      batches[k]!.push(((used.user + used.system) * 1000) / BATCH);
    }
    if ((r + 1) % Math.ceil(ROUNDS / 5) === 0)
      console.log(`${framework}: round ${r + 1}/${ROUNDS}`);
  }
  const base = batches[0]!;
  const baseMean = mean(base);
  return VARIANTS.map((variant, k) => {
    const mine = batches[k]!;
    const paired = mine.map((ns, r) => ns - base[r]!);
    const meanNs = mean(mine);
    const deltaNs = meanNs - baseMean;
    const http = HTTP_US[framework] * 1000;
    return {
      variant,
      label: variant === 'peer' ? peerOf(framework) : (LABELS[variant] ?? variant),
      probe: probes[k]!,
      batches: mine,
      meanNs,
      deltaNs,
      deltaMedian: median(paired),
      deltaQ1: quantile(paired, 0.25),
      deltaQ3: quantile(paired, 0.75),
      ratio: baseMean / meanNs,
      httpRatio: http / (http + deltaNs),
    };
  });
}

async function main(): Promise<void> {
  const only = args.only?.split(',') ?? [...FRAMEWORKS];
  for (const f of only) {
    if (!(FRAMEWORKS as readonly string[]).includes(f))
      throw new Error(`--only: no framework ${f} (${FRAMEWORKS.join(', ')})`);
  }
  // One core, as bench:http's servers: the GC's helper threads share it.
  const pinned = canPin();
  if (pinned) pin(process.pid, 1);
  const host = machine();
  const loadStart = os.loadavg()[0]!;
  console.log(
    `machine: ${host.cores} cores, ${host.cpu}, Node ${host.node}; ${pinned ? 'pinned to core 1' : 'not pinned'}; ` +
      `${BATCH} requests per batch, ${ROUNDS} interleaved rounds\n`,
  );
  const results: InprocReport['results'] = {};
  for (const f of only as Framework[]) results[f] = await measure(f);
  const loadEnd = os.loadavg()[0]!;

  const report: InprocReport = {
    machine: host,
    pinned,
    batch: BATCH,
    rounds: ROUNDS,
    httpUs: HTTP_US,
    load: [loadStart, loadEnd],
    results,
  };
  finishPart('inproc', report, inprocVerdict(report), args.json);
}

await main();
