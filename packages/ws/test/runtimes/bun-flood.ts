/**
 * Run by Bun (bun.test.ts bundles it): a `Bun.serve` WebSocket server whose handler is
 * wrapped by `limitBunMessages`, flooded by a Bun WebSocket client, once per `onLimit` mode.
 * Prints one line, `SLUICE-BUN <json>`, what each run saw.
 */
import { Limit, MemoryStore } from '@sluice/core';
import { limitBunMessages } from '@sluice/ws';

/** The part of Bun's API used here (no Bun types in this workspace). */
interface ServerSocket {
  data: { user: { id: string } };
  send(m: string): void;
  close(code?: number, reason?: string): void;
  isPaused?: boolean;
}
declare const Bun: {
  version: string;
  serve(options: {
    port: number;
    hostname: string;
    fetch(req: Request, server: { upgrade(req: Request, o: object): boolean }): unknown;
    websocket: object;
  }): { port: number; stop(force?: boolean): void };
};
interface ClientSocket {
  readyState: number;
  send(m: string): void;
  close(code?: number): void;
  onopen: (() => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  onclose: ((e: { code: number; reason: string }) => void) | null;
}
const ClientWebSocket = (globalThis as unknown as { WebSocket: new (url: string) => ClientSocket })
  .WebSocket;

const fixedClock = () => 1_700_000_000_000;

interface Run {
  handled: string[];
  limited: number;
  pausedWhenLimited: boolean;
  closeCode: number;
  closeReason: string;
  /** ms from the first message handled to the last. */
  spanMs: number;
}

async function run(
  onLimit: 'close' | 'pause' | 'drop',
  limit: Limit,
  count: number,
  clock?: () => number,
): Promise<Run> {
  const out: Run = {
    handled: [],
    limited: 0,
    pausedWhenLimited: true,
    closeCode: 0,
    closeReason: '',
    spanMs: 0,
  };
  let first = 0;
  // The server side of the one client of this run.
  let socket: ServerSocket | undefined;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req, srv) =>
      srv.upgrade(req, { data: { user: { id: 'u1' } } }) ? undefined : new Response('no'),
    websocket: limitBunMessages(
      {
        open(ws: ServerSocket) {
          socket = ws;
        },
        message(_ws: ServerSocket, m: string | Uint8Array) {
          if (out.handled.length === 0) first = performance.now();
          out.handled.push(String(m));
          out.spanMs = performance.now() - first;
        },
      },
      limit,
      {
        onLimit,
        store: new MemoryStore(),
        clock,
        onLimited: (_verdict, _m) => {
          out.limited++;
          // pause: the gate paused reading before telling
          if (onLimit === 'pause') out.pausedWhenLimited &&= socket?.isPaused === true;
          // drop: the last of the flood dropped, the socket still answers
          if (onLimit === 'drop' && out.limited + out.handled.length === count)
            socket?.send('done');
        },
      },
    ),
  });
  try {
    await new Promise<void>((resolve) => {
      const client = new ClientWebSocket(`ws://127.0.0.1:${server.port}`);
      client.onopen = () => {
        for (let i = 0; i < count; i++) client.send(String(i));
      };
      client.onmessage = () => client.close(1000);
      client.onclose = (e) => {
        out.closeCode = e.code;
        out.closeReason = e.reason;
        resolve();
      };
      if (onLimit === 'pause') {
        const wait = setInterval(() => {
          if (out.handled.length === count) {
            clearInterval(wait);
            client.close(1000);
          }
        }, 20);
      }
    });
  } finally {
    server.stop(true);
  }
  return out;
}

const results = {
  bun: Bun.version,
  // 10,000 messages on 100/s burst 100 (a fixed clock: nothing refills during the flood)
  close: await run('close', Limit.perSecond(100), 10_000, fixedClock),
  drop: await run('drop', Limit.perSecond(100), 1_000, fixedClock),
  // 300 messages on 50/s burst 50, the real clock: 250 wait their turn (5 s)
  pause: await run('pause', Limit.perSecond(50), 300),
};
console.log(`SLUICE-BUN ${JSON.stringify(results)}`);
