import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleForRuntime, runForLine, runtimeBinary, workspaceAliases } from '@sluice/test-kit';
import { limitBunMessages } from '@sluice/ws';

/** runtimes/bun-flood.ts as one ES module, the workspace's sources in it. */
const bundle = (dir: string) =>
  bundleForRuntime(
    join(__dirname, 'runtimes', 'bun-flood.ts'),
    join(dir, 'bun-flood.mjs'),
    workspaceAliases(['ws']),
  );

interface Run {
  handled: string[];
  limited: number;
  pausedWhenLimited: boolean;
  closeCode: number;
  closeReason: string;
  spanMs: number;
}

/** Runs the bundle on Bun; resolves with its `SLUICE-BUN` line, parsed. */
async function runOnBun(file: string): Promise<Record<'close' | 'drop' | 'pause', Run>> {
  const { value } = await runForLine<Record<'close' | 'drop' | 'pause', Run>>(
    runtimeBinary('bun'),
    ['run', '--smol', file],
    'SLUICE-BUN ',
  );
  return value;
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => String(i));

describe('limitBunMessages on Bun (from npm), Bun.serve flooded by a client', () => {
  let dir: string;
  let results: Record<'close' | 'drop' | 'pause', Run>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-bun-ws-'));
    results = await runOnBun(await bundle(dir));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('close: 10,000 messages on 100/s burst 100 -> the handler sees exactly 100, then 1008 at the 101st', () => {
    const r = results.close;
    expect(r.handled).toEqual(upTo(100));
    expect(r.limited).toBe(1); // closed on the one message over the limit
    expect(r.closeCode).toBe(1008);
    expect(r.closeReason).toBe('rate limit exceeded');
  });

  it('drop: exactly 100 handled, the other 900 dropped, the socket still open', () => {
    const r = results.drop;
    expect(r.handled).toEqual(upTo(100));
    expect(r.limited).toBe(900);
    expect(r.closeCode).toBe(1000); // the client closed after the server's answer
  });

  it('pause: ws.pause() on Bun, every message handled in order at the rate, none dropped', () => {
    const r = results.pause;
    expect(r.handled).toEqual(upTo(300));
    expect(r.limited).toBeGreaterThan(0);
    expect(r.pausedWhenLimited).toBe(true);
    // 250 beyond the burst at 50/s: at least 5 s (less a margin for the clock's grain)
    expect(r.spanMs).toBeGreaterThanOrEqual(4_900);
  });
});

describe('limitBunMessages options', () => {
  const handler = { message() {} };
  it('refuses a bad onLimit, onLimited or handler at construction', () => {
    expect(() => limitBunMessages(handler, '10/s', { onLimit: 'slow' as never })).toThrow(
      expect.objectContaining({ option: 'onLimit' }),
    );
    expect(() => limitBunMessages(handler, '10/s', { onLimited: 1 as never })).toThrow(
      expect.objectContaining({ option: 'onLimited' }),
    );
    expect(() => limitBunMessages({} as never, '10/s')).toThrow(
      expect.objectContaining({ option: 'handler' }),
    );
  });

  it("closes a socket that cannot pause (an older Bun) with 1011 under 'pause', never unlimited", () => {
    const closed: [number, string][] = [];
    const seen: unknown[] = [];
    const warn = jest.fn();
    const h = limitBunMessages({ message: (_ws: unknown, m: unknown) => seen.push(m) }, '10/s', {
      onLimit: 'pause',
      logger: { warn, error: warn, info: warn, debug: warn } as never,
    });
    const ws = { remoteAddress: '10.0.0.1', close: (c: number, r: string) => closed.push([c, r]) };
    h.message(ws, 'a');
    expect(seen).toEqual([]);
    expect(closed).toEqual([[1011, 'rate limiter cannot pause']]);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/needs Bun's ServerWebSocket.pause/));
  });
});
