import { EPOCH } from '@sluice/test-kit';
import { fixedWindow, gcra, MemoryStore, RateLimiter } from '../../src/index.js';

describe('MemoryStore', () => {
  it('holds at most maxKeys keys after 1,000,000 distinct keys, keeping the most recent', () => {
    const store = new MemoryStore({ maxKeys: 100_000 });
    // One hour per request: nothing expires during the test.
    const algorithm = gcra({ rate: 1, period: '1h', burst: 5 });
    const n = 1_000_000;
    for (let i = 0; i < n; i++) {
      const d = store.consume(`k${i}`, algorithm, 1, EPOCH);
      if (!d.allowed) throw new Error(`fresh key k${i} denied`);
      if (i % 100_000 === 99_999 && store.size > 100_000) {
        throw new Error(`${store.size} keys after ${i + 1} keys`);
      }
    }
    expect(store.size).toBe(100_000);
    // Exactly the last 100 000 keys survive.
    expect(store.inspect(`k${n - 100_000}`)).toBeDefined();
    expect(store.inspect(`k${n - 1}`)).toBeDefined();
    expect(store.inspect(`k${n - 100_001}`)).toBeUndefined();
    expect(store.inspect('k0')).toBeUndefined();
    // An evicted key starts from a full quota; a kept one remembers its request.
    expect(store.consume('k0', algorithm, 0, EPOCH).remaining).toBe(5);
    expect(store.consume(`k${n - 1}`, algorithm, 0, EPOCH).remaining).toBe(4);
  });

  it('does not count an expired key in size once the clock has moved past its expiry', async () => {
    let now = EPOCH;
    const store = new MemoryStore();
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 3, window: 1000 }),
      store,
      clock: () => now,
    });
    await limiter.consume('a'); // window [EPOCH, EPOCH + 1000)
    now = EPOCH + 500;
    await limiter.consume('b'); // window [EPOCH + 500, EPOCH + 1500)
    expect(store.size).toBe(2);

    now = EPOCH + 999;
    await limiter.peek('other'); // a peek writes nothing, but moves the store's clock
    expect(store.size).toBe(2);

    now = EPOCH + 1000; // a's window has ended
    await limiter.peek('other');
    expect(store.size).toBe(1);
    expect(store.inspect('sl@fw:a')).toBeUndefined();

    now = EPOCH + 1500;
    await limiter.peek('other');
    expect(store.size).toBe(0);
    // The expired key decides as a fresh one.
    expect((await limiter.consume('a')).remaining).toBe(2);
    expect(store.size).toBe(1);
  });

  it('evicts the least recently used key, not a recently used one', async () => {
    let now = EPOCH;
    const store = new MemoryStore({ maxKeys: 3 });
    const limiter = new RateLimiter({
      algorithm: fixedWindow({ limit: 10, window: '1h' }),
      store,
      clock: () => now,
    });
    await limiter.consume('a');
    now += 1;
    await limiter.consume('b');
    now += 1;
    await limiter.consume('c');
    now += 1;
    await limiter.consume('a'); // a is now the most recently used; b the least
    now += 1;
    await limiter.consume('d'); // over maxKeys: one key must go
    expect(store.size).toBe(3);
    // A fixed window's keys are marked `@fw` after the prefix.
    expect(store.inspect('sl@fw:b')).toBeUndefined();
    expect(store.inspect('sl@fw:a')).toEqual([EPOCH + 3_600_000, 2]);
    expect(store.inspect('sl@fw:c')).toBeDefined();
    expect(store.inspect('sl@fw:d')).toBeDefined();
    // a still has its two requests; b starts over.
    expect((await limiter.peek('a')).remaining).toBe(8);
    expect((await limiter.peek('b')).remaining).toBe(10);
  });

  it('reset forgets a key: its next decision sees a full quota', async () => {
    const now = EPOCH;
    const store = new MemoryStore();
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 2, period: '1m' }),
      store,
      clock: () => now,
    });
    await limiter.consume('x');
    await limiter.consume('x');
    await limiter.consume('y');
    const denied = await limiter.consume('x');
    expect(denied.allowed).toBe(false);
    expect(store.size).toBe(2);

    await limiter.reset('x');
    expect(store.inspect('sl:x')).toBeUndefined();
    expect(store.size).toBe(1);
    const fresh = await limiter.consume('x');
    expect(fresh).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 30_000 });
    // Other keys are untouched.
    expect((await limiter.peek('y')).remaining).toBe(1);

    store.reset('sl:y');
    expect(store.inspect('sl:y')).toBeUndefined();
    expect((await limiter.peek('y')).remaining).toBe(2);
  });

  it('inspect returns the stored state the algorithm decides on', async () => {
    let now = EPOCH + 7;
    const store = new MemoryStore();
    const g = gcra({ rate: 3000, period: '1s', burst: 10 }); // T = 1/3 ms
    const w = fixedWindow({ limit: 5, window: 1000 });
    const gl = new RateLimiter({ algorithm: g, store, prefix: 'g', clock: () => now });
    const wl = new RateLimiter({ algorithm: w, store, prefix: 'w', clock: () => now });

    expect(store.inspect('g:k')).toBeUndefined();
    await gl.consume('k', { cost: 3 });
    // GCRA's state is its TAT: now + 3 x T = now + 1 ms.
    expect(store.inspect('g:k')).toBe(now + 1);
    await wl.consume('k', { cost: 2 });
    expect(store.inspect('w@fw:k')).toEqual([now + 1000, 2]);

    now += 1;
    await wl.consume('k');
    expect(store.inspect('w@fw:k')).toEqual([EPOCH + 7 + 1000, 3]);
    // A denial leaves the state as it was.
    const before = store.inspect('w@fw:k');
    expect((await wl.consume('k', { cost: 3 })).allowed).toBe(false);
    expect(store.inspect('w@fw:k')).toEqual(before);
    // What inspect shows is what the algorithm sees. At now = EPOCH + 8 the window
    // [EPOCH + 7, EPOCH + 1007) holds 3 of 5 units: 2 remain, full again in 999 ms.
    const windowPeek = {
      allowed: true,
      limit: 5,
      remaining: 2,
      retryAfterMs: 0,
      resetAfterMs: 999,
      cost: 0,
    };
    expect(w.step(store.inspect('w@fw:k'), now, 0).decision).toEqual(windowPeek);
    expect(await wl.peek('k')).toEqual(windowPeek);
    // GCRA's TAT (EPOCH + 8) is now: nothing is ahead, all 10 units remain, reset 0.
    const gcraPeek = {
      allowed: true,
      limit: 10,
      remaining: 10,
      retryAfterMs: 0,
      resetAfterMs: 0,
      cost: 0,
    };
    expect(g.step(store.inspect('g:k'), now, 0).decision).toEqual(gcraPeek);
    expect(await gl.peek('k')).toEqual(gcraPeek);
  });
});
