import { type ChildProcess, fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Limit, LimitOperations, MemoryStore } from '@sluice/core';
import { type RedisProcess, startRedis, tsWorkerPath } from '@sluice/test-kit';
import { limitIoConnections, limitIoEvents } from '@sluice/ws';
import { Server } from 'socket.io';
import { io as connect, type Socket } from 'socket.io-client';

const fixedClock = () => 1_700_000_000_000;

const connected = (socket: Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });

async function ioServer(setup: (io: Server) => void) {
  const http = createServer();
  const io = new Server(http);
  setup(io);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => io.close(r)) };
}

describe('socket.io middleware', () => {
  it('limitIoConnections: the connection over the limit gets connect_error with data.retryAfter', async () => {
    const s = await ioServer((io) =>
      io.use(
        limitIoConnections(Limit.perMinute(2), { store: new MemoryStore(), clock: fixedClock }),
      ),
    );
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const c = connect(s.url, { transports: ['websocket'], reconnection: false });
        sockets.push(c);
        await connected(c);
      }
      const third = connect(s.url, { transports: ['websocket'], reconnection: false });
      sockets.push(third);
      const error = await connected(third).then(
        () => undefined,
        (e: Error & { data?: unknown }) => e,
      );
      expect(error?.message).toBe('rate limit exceeded');
      expect(error?.data).toEqual({ retryAfter: 30 });
    } finally {
      for (const c of sockets) c.close();
      await s.close();
    }
  });

  it('limitIoEvents: events over the limit never reach the handler; the ack gets retryAfter', async () => {
    let handled = 0;
    const s = await ioServer((io) => {
      io.use(
        limitIoEvents(
          { ping: '5/min', '*': '100/min' },
          { store: new MemoryStore(), clock: fixedClock },
        ),
      );
      io.on('connection', (socket) => {
        socket.on('ping', (ack: (r: unknown) => void) => {
          handled++;
          ack('pong');
        });
      });
    });
    const c = connect(s.url, { transports: ['websocket'], reconnection: false });
    try {
      await connected(c);
      const answers = [];
      for (let i = 0; i < 8; i++) answers.push(await c.emitWithAck('ping'));
      expect(handled).toBe(5);
      expect(answers.slice(0, 5)).toEqual(Array(5).fill('pong'));
      expect(answers.slice(5)).toEqual(
        Array(3).fill({ error: 'rate limit exceeded', retryAfter: 12 }),
      );
    } finally {
      c.close();
      await s.close();
    }
  });

  it('a denied subject (waiting will not help) gets no retryAfter, never -1', async () => {
    const store = new MemoryStore();
    await new LimitOperations({ store }).deny({ key: 'evil' });
    const options = { store, key: () => 'evil', clock: fixedClock };
    const s = await ioServer((io) => io.use(limitIoConnections('2/min', options)));
    const e = await ioServer((io) => io.use(limitIoEvents({ ping: '5/min' }, options)));
    const c = connect(s.url, { transports: ['websocket'], reconnection: false });
    const d = connect(e.url, { transports: ['websocket'], reconnection: false });
    try {
      const error = await connected(c).then(
        () => undefined,
        (x: Error & { data?: unknown }) => x,
      );
      expect(error?.message).toBe('rate limit exceeded');
      expect(error?.data).toEqual({});
      await connected(d);
      expect(await d.emitWithAck('ping')).toEqual({ error: 'rate limit exceeded' });
    } finally {
      c.close();
      d.close();
      await s.close();
      await e.close();
    }
  });

  it('refuses bad options', () => {
    expect(() => limitIoEvents({})).toThrow(expect.objectContaining({ option: 'limits' }));
    expect(() => limitIoEvents({ a: '1/s' }, { onLimit: 'close' as never })).toThrow(
      expect.objectContaining({ option: 'onLimit' }),
    );
    expect(() => limitIoConnections('1/s', { max: 3 } as never)).toThrow(/max/);
  });
});

describe('socket.io on Redis across processes', () => {
  let redis: RedisProcess;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);

  afterAll(async () => {
    for (const c of children) c.kill();
    await redis?.stop();
  });

  function worker(prefix: string): Promise<{ port: number; child: ChildProcess }> {
    const child = fork(tsWorkerPath(), [join(__dirname, 'io-worker.ts')], {
      env: { ...process.env, REDIS_PORT: String(redis.port), PREFIX: prefix },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    return new Promise((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve({ port: m.port, child }));
      child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
  }

  it('one user on 4 sockets across 2 processes: total admitted = the limit (50)', async () => {
    const prefix = `io-${process.pid}-${Date.now()}`;
    const [a, b] = await Promise.all([worker(prefix), worker(prefix)]);
    const sockets = [a, b, a, b].map(({ port }) =>
      connect(`http://127.0.0.1:${port}`, {
        transports: ['websocket'],
        reconnection: false,
        auth: { user: 'u1' },
      }),
    );
    try {
      await Promise.all(sockets.map(connected));
      // 4 sockets x 30 events at once: 120 attempts on a budget of 50
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => sockets.map((s) => s.emitWithAck('work'))).flat(),
      );
      const ok = answers.filter((r: { ok?: boolean }) => r.ok === true);
      expect(ok).toHaveLength(50);
      expect(
        answers.filter((r: { error?: string }) => r.error === 'rate limit exceeded'),
      ).toHaveLength(70);
    } finally {
      for (const s of sockets) s.close();
    }
  }, 60_000);
});
