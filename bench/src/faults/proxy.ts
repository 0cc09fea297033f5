// The runner's own TCP proxy between one app and its store (node:net, 127.0.0.1 only): it
// adds latency to the store's replies, holds them in transit, or stops forwarding in both
// directions (a partition of that app from the store), and heals. Data held during a
// partition is sent on heal, as TCP does after a short partition.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does to the traffic it forwards. */
export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number } // every reply written from now on arrives `ms` later
  | { kind: 'partition' }; // nothing is forwarded either way until the next mode

export interface FaultProxy {
  readonly port: number;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

interface Pipe {
  queue: { at: number; chunk: Buffer }[];
  timer: NodeJS.Timeout | undefined;
  pump(): void;
}

export async function faultProxy(serverPort: number): Promise<FaultProxy> {
  let mode: ProxyMode = { kind: 'pass' };
  const sockets = new Set<Socket>();
  const pipes = new Set<Pipe>();
  /** One direction: chunks leave in order, each at its `at` (Infinity while partitioned). */
  const pipe = (to: Socket, delayed: boolean): Pipe & { push(chunk: Buffer): void } => {
    const p = {
      queue: [] as { at: number; chunk: Buffer }[],
      timer: undefined as NodeJS.Timeout | undefined,
      pump() {
        if (p.timer !== undefined) clearTimeout(p.timer);
        p.timer = undefined;
        if (mode.kind === 'partition') return;
        const now = performance.now();
        while (p.queue.length > 0 && p.queue[0]!.at <= now) {
          const { chunk } = p.queue.shift()!;
          if (to.writable) to.write(chunk);
        }
        if (p.queue.length > 0)
          p.timer = setTimeout(() => p.pump(), Math.ceil(p.queue[0]!.at - now));
      },
      push(chunk: Buffer) {
        const last = p.queue.length > 0 ? p.queue[p.queue.length - 1]!.at : 0;
        const delay = delayed && mode.kind === 'delay' ? mode.ms : 0;
        p.queue.push({ at: Math.max(last, performance.now() + delay), chunk });
        if (p.timer === undefined) p.pump();
      },
    };
    pipes.add(p);
    return p;
  };
  const server: Server = createServer((downstream) => {
    const upstream = createConnection({ host: '127.0.0.1', port: serverPort });
    sockets.add(downstream).add(upstream);
    const toServer = pipe(upstream, false);
    const toClient = pipe(downstream, true);
    downstream.on('data', (c: Buffer) => toServer.push(c));
    upstream.on('data', (c: Buffer) => toClient.push(c));
    const end = () => {
      downstream.destroy();
      upstream.destroy();
      for (const p of [toServer, toClient]) {
        if (p.timer !== undefined) clearTimeout(p.timer);
        pipes.delete(p);
      }
    };
    upstream.on('close', end).on('error', end);
    downstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    set(next) {
      mode = next;
      for (const p of pipes) p.pump();
    },
    close() {
      for (const s of sockets) s.destroy();
      for (const p of pipes) if (p.timer !== undefined) clearTimeout(p.timer);
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
