// `limitMessages` under a flood: 100 messages/s, burst 100, against a client process sending flat out;
// pause beside drop: handled rate, messages lost, RSS growth.
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Limit, limitMessages, MemoryStore } from '@sluice/ws';
import { WebSocketServer } from 'ws';

export interface FloodResult {
  mode: 'pause' | 'drop';
  seconds: number;
  handled: number;
  /** Handled per second from 1 s after the first message handled (the burst spent) to the end. */
  rate: number;
  /** Messages missing from the handled sequence (pause must be 0; drop drops by design). */
  gaps: number;
  sent: number;
  rssGrowthMb: number;
}

export async function benchFlood(mode: 'pause' | 'drop', seconds: number): Promise<FloodResult> {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const store = new MemoryStore();
  const times: number[] = [];
  let next = 0;
  let gaps = 0;
  let handled = 0;
  wss.on('connection', (ws, req) => {
    limitMessages(ws, Limit.perSecond(100), { request: req, store, onLimit: mode });
    ws.on('message', (data) => {
      const seq = Number(String(data).slice(0, 8));
      if (seq !== next) gaps += seq - next;
      next = seq + 1;
      handled++;
      times.push(performance.now());
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const client = fork(fileURLToPath(new URL('./ws-flood-client.ts', import.meta.url)), [url], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const t0 = performance.now();
  let peak = rss0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const sent = await new Promise<number>((resolve) => {
    client.once('message', (m: { sent: number }) => resolve(m.sent));
    client.send({ type: 'stop' });
  });
  clearInterval(sampler);
  // From 1 s after the first message handled (the client process takes a while to start, and
  // the burst of 100 is spent in that first second) to the end of the run.
  const end = t0 + seconds * 1000;
  const from = (times[0] ?? t0) + 1000;
  const steady = times.filter((t) => t >= from && t < end).length;
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => wss.close(r));
  await new Promise((r) => http.close(r));
  return {
    mode,
    seconds,
    handled,
    rate: steady / ((end - from) / 1000),
    gaps,
    sent,
    rssGrowthMb: (peak - rss0) / 1e6,
  };
}
