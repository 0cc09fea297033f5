// A TCP proxy in front of a server (redis-server, PostgreSQL) that can hold up its replies
// (and only them): commands reach the server at once, so a script or statement runs in
// time, while its reply arrives `delayMs` later. What a slow network or a congested proxy
// does to a reply.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A {@link replyDelayProxy}: clients connect to `port`. */
export interface ReplyDelay {
  readonly port: number;
  /** Holds every reply written from now on for `ms` (0: none), in order. */
  delay(ms: number): void;
  close(): Promise<void>;
}

/** A proxy on a free port of 127.0.0.1 to the server on `serverPort` (of 127.0.0.1). */
export async function replyDelayProxy(serverPort: number): Promise<ReplyDelay> {
  let delayMs = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    const upstream = createConnection({ host: '127.0.0.1', port: serverPort });
    sockets.add(downstream).add(upstream);
    downstream.pipe(upstream);
    // One queue per connection, sent in order by one timer: replies keep their order (a
    // timer per chunk would not: Node truncates each delay to whole ms).
    const queue: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = () => {
      timer = undefined;
      const now = performance.now();
      while (queue.length > 0 && queue[0]!.at <= now) {
        const { chunk } = queue.shift()!;
        if (downstream.writable) downstream.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(pump, Math.ceil(queue[0]!.at - now));
    };
    upstream.on('data', (chunk: Buffer) => {
      const last = queue.length > 0 ? queue[queue.length - 1]!.at : 0;
      queue.push({ at: Math.max(last, performance.now() + delayMs), chunk });
      if (timer === undefined) pump();
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
