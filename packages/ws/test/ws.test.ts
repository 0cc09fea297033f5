import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Limit, LimitOperations, MemoryStore, ThrottleRegistry } from '@sluice/core';
import { limitMessages, limitUpgrades } from '@sluice/ws';
import { WebSocket, WebSocketServer } from 'ws';

interface Harness {
  url: string;
  handled: { data: string; at: number }[];
  limited: number;
  close(): Promise<void>;
}

/** A ws server whose 'connection' handler limits messages first, then listens. */
async function harness(
  attach: (ws: WebSocket, req: import('node:http').IncomingMessage, h: Harness) => void,
  extra: object = {},
): Promise<Harness> {
  const http: Server = createServer();
  const wss = new WebSocketServer({ server: http, ...extra });
  const h: Harness = { url: '', handled: [], limited: 0, close: async () => {} };
  wss.on('connection', (ws, req) => {
    attach(ws, req, h);
    ws.on('message', (data) => h.handled.push({ data: String(data), at: performance.now() }));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  h.url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
  h.close = async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((r) => wss.close(r));
    await new Promise((r) => http.close(r));
  };
  return h;
}

const open = (url: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

const fixedClock = () => 1_700_000_000_000;

describe('limitMessages on ws', () => {
  it('close: a 10,000-message flood on 100/s burst 100 -> the handler sees exactly 100, then 1008', async () => {
    const h = await harness((ws, req, hh) =>
      limitMessages(ws, Limit.perSecond(100), {
        request: req,
        store: new MemoryStore(),
        clock: fixedClock,
        onLimited: () => hh.limited++,
      }),
    );
    try {
      const client = await open(h.url);
      const closed = new Promise<{ code: number; reason: string }>((r) =>
        client.once('close', (code, reason) => r({ code, reason: String(reason) })),
      );
      for (let i = 0; i < 10_000; i++) client.send(String(i));
      const { code, reason } = await closed;
      expect(code).toBe(1008);
      expect(reason).toBe('rate limit exceeded');
      expect(h.handled.map((m) => m.data)).toEqual(
        Array.from({ length: 100 }, (_, i) => String(i)),
      );
      // closed on the 101st message: exactly one more message was decided
      expect(h.limited).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('drop: messages over the limit are dropped, the socket stays open', async () => {
    const h = await harness((ws, req, hh) =>
      limitMessages(ws, Limit.perSecond(100), {
        request: req,
        store: new MemoryStore(),
        clock: fixedClock,
        onLimit: 'drop',
        onLimited: () => hh.limited++,
      }),
    );
    try {
      const client = await open(h.url);
      for (let i = 0; i < 300; i++) client.send(String(i));
      const echo = new Promise((r) => client.once('pong', r));
      client.ping();
      await echo;
      await new Promise((r) => setTimeout(r, 50));
      expect(h.handled).toHaveLength(100);
      expect(h.limited).toBe(200);
      expect(client.readyState).toBe(WebSocket.OPEN);
      client.close();
    } finally {
      await h.close();
    }
  });

  it('pause: every message handled, in order, at the limit (±1%), none dropped', async () => {
    const h = await harness((ws, req) =>
      limitMessages(ws, Limit.perSecond(100), {
        request: req,
        store: new MemoryStore(),
        onLimit: 'pause',
      }),
    );
    try {
      const client = await open(h.url);
      const total = 350;
      for (let i = 0; i < total; i++) client.send(String(i));
      const deadline = Date.now() + 10_000;
      while (h.handled.length < total && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(h.handled.map((m) => m.data)).toEqual(
        Array.from({ length: total }, (_, i) => String(i)),
      );
      // After the burst of 100, the next 250 arrive at 100/s: 2.5 s
      const seconds = (h.handled[total - 1]!.at - h.handled[99]!.at) / 1000;
      const rate = (total - 100) / seconds;
      expect(rate).toBeGreaterThan(99);
      expect(rate).toBeLessThan(101);
      expect(client.readyState).toBe(WebSocket.OPEN);
      client.close();
    } finally {
      await h.close();
    }
  }, 15_000);

  it("one user's sockets share one budget (keyed by the upgrade request's IP)", async () => {
    const store = new MemoryStore();
    const h = await harness((ws, req) =>
      limitMessages(ws, Limit.perSecond(50), {
        request: req,
        store,
        clock: fixedClock,
        onLimit: 'drop',
      }),
    );
    try {
      const [a, b] = [await open(h.url), await open(h.url)];
      for (let i = 0; i < 40; i++) {
        a.send('a');
        b.send('b');
      }
      await new Promise((r) => setTimeout(r, 200));
      expect(h.handled).toHaveLength(50);
      a.close();
      b.close();
    } finally {
      await h.close();
    }
  });

  it('a decision that fails closes the socket with 1011 and logs it: never an unlimited socket', async () => {
    const warned: string[] = [];
    const throttles = new ThrottleRegistry().define('broken', () => {
      throw new Error('plans database down');
    });
    const h = await harness((ws, req) =>
      limitMessages(ws, 'throttle:broken', {
        request: req,
        throttles,
        logger: { warn: (m: string) => warned.push(m) },
      }),
    );
    try {
      const client = await open(h.url);
      const closed = new Promise<number>((r) => client.once('close', (code) => r(code)));
      client.send('x');
      expect(await closed).toBe(1011);
      expect(h.handled).toHaveLength(0);
      expect(warned).toEqual([expect.stringMatching(/could not be decided/)]);
    } finally {
      await h.close();
    }
  });

  it('refuses bad options at the call', () => {
    const ws = new WebSocket('ws://127.0.0.1:1'); // never opened
    ws.on('error', () => {});
    expect(() => limitMessages(ws, '10/s', { onLimit: 'block' as never })).toThrow(
      expect.objectContaining({ option: 'onLimit' }),
    );
    expect(() => limitMessages(ws, '10/s', { windowMs: 5 } as never)).toThrow(/windowMs/);
    expect(() => limitMessages(ws, 'throttle:0,1')).toThrow(
      expect.objectContaining({ option: 'limit' }),
    );
    const noPause = { emit: () => true, close: () => {} };
    expect(() => limitMessages(noPause, '10/s', { onLimit: 'pause' })).toThrow(/pause/);
  });
});

describe('limitUpgrades', () => {
  it('an upgrade waiting will never admit (an operator deny) gets 429 without Retry-After', async () => {
    const store = new MemoryStore();
    await new LimitOperations({ store }).deny({ key: 'evil' });
    const upgrades = limitUpgrades(Limit.perMinute(2), {
      store,
      key: () => 'evil',
      clock: fixedClock,
    });
    const h = await harness(() => {}, { verifyClient: upgrades.verifyClient });
    try {
      const refused = await new Promise<{ status: number; retryAfter: unknown }>((resolve) => {
        const ws = new WebSocket(h.url);
        ws.on('unexpected-response', (_req, res) =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }),
        );
        ws.on('error', () => {});
      });
      expect(refused).toEqual({ status: 429, retryAfter: undefined });
    } finally {
      await h.close();
    }
  });

  it('refuses the upgrade over the limit with 429 and Retry-After', async () => {
    const upgrades = limitUpgrades(Limit.perMinute(2), {
      store: new MemoryStore(),
      clock: fixedClock,
    });
    const h = await harness(() => {}, { verifyClient: upgrades.verifyClient });
    try {
      (await open(h.url)).close();
      (await open(h.url)).close();
      const refused = await new Promise<{ status: number; retryAfter: string | undefined }>(
        (resolve) => {
          const ws = new WebSocket(h.url);
          ws.on('unexpected-response', (_req, res) =>
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: res.headers['retry-after'] as string,
            }),
          );
          ws.on('error', () => {});
        },
      );
      expect(refused).toEqual({ status: 429, retryAfter: '30' });
    } finally {
      await h.close();
    }
  });
});
