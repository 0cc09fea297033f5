// A TCP proxy in front of a redis-server that can hold up Redis's replies (and only them):
// commands reach Redis at once, so a script runs in time, while its reply arrives
// `delayMs` later. What a slow network or a congested proxy does to a reply.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface ReplyDelay {
  readonly port: number;
  /** Holds every reply written from now on for `ms` (0: none), in order. */
  delay(ms: number): void;
  close(): Promise<void>;
}

export async function replyDelayProxy(redisPort: number): Promise<ReplyDelay> {
  let delayMs = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    const upstream = createConnection({ host: '127.0.0.1', port: redisPort });
    sockets.add(downstream).add(upstream);
    downstream.pipe(upstream);
    // Each chunk leaves no earlier than the one before it: replies keep their order.
    let last = 0;
    upstream.on('data', (chunk) => {
      const at = Math.max(last, performance.now() + delayMs);
      last = at;
      const wait = at - performance.now();
      if (wait <= 0) downstream.write(chunk);
      else setTimeout(() => downstream.writable && downstream.write(chunk), wait);
    });
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    upstream.on('close', end).on('error', end);
    downstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    delay(ms) {
      delayMs = ms;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
