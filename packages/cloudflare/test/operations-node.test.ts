// DurableObjectStore#operations where timers outlive requests (Node, tests through a bridge):
// each process re-reads the entries' version on a timer every syncMs, and reloads only when
// it changed. Two stores on one in-process namespace stand for two processes; jest's fake
// timers drive the timer (promises and microtasks run for real: the batches need them).

import { LimitOperations, type RequestView } from '@sluice/core';
import { HttpLimiter } from '@sluice/core/http';
import { EPOCH } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { inProcessNamespace } from './in-process.js';

const SYNC_MS = 1000;

function view(ip: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {} };
}

beforeEach(() => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'], now: EPOCH });
});
afterEach(() => {
  jest.useRealTimers();
});

it("a ban written through A reaches B's limiters by B's version check, within syncMs; unchanged versions load nothing", async () => {
  const { namespace, fetches } = inProcessNamespace();
  const store = () => new DurableObjectStore({ namespace, operations: { syncMs: SYNC_MS } });
  const a = store();
  const b = store();
  const ops = new LimitOperations({ store: a });
  const httpB = new HttpLimiter({ store: b, limit: '1000/1s' });
  const status = async (ip = '203.0.113.7') =>
    ((await httpB.check(view(ip))) as { statusCode: number } | undefined)?.statusCode;
  // Count B's calls on the entries' object by what they ask.
  const asked: string[] = [];
  const sync = b.operations;
  for (const method of ['load', 'version'] as const) {
    const original = sync[method].bind(sync);
    (sync as unknown as Record<string, unknown>)[method] = (prefix: string) => {
      asked.push(method);
      return original(prefix);
    };
  }
  expect(await status()).toBe(200);
  await jest.advanceTimersByTimeAsync(0);
  expect(asked).toEqual(['load']);
  // Two checks with nothing new: two version reads, no load.
  await jest.advanceTimersByTimeAsync(2 * SYNC_MS);
  expect(asked).toEqual(['load', 'version', 'version']);
  await ops.ban({ ip: '203.0.113.7' }, { for: '1h' });
  expect(await status()).toBe(200);
  await jest.advanceTimersByTimeAsync(SYNC_MS);
  expect(asked).toEqual(['load', 'version', 'version', 'version', 'load']);
  expect(await status()).toBe(429);
  expect(await status('203.0.113.8')).toBe(200);
  // Decisions sent nothing to the entries' object: its fetches are B's 5 calls and A's 3
  // (the write, the reload of A's own snapshot, and A's version check one syncMs later).
  expect(fetches.filter((name) => name === 'sluice:ops:sl')).toHaveLength(8);
});
