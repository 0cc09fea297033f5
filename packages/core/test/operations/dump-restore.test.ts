// MemoryStore#dump() / restore(): 100k keys moved to a new store decide their next request
// exactly as the source would; a snapshot taken under other algorithms or limits is refused.
import { EPOCH } from '@sluice/test-kit';
import {
  type Decision,
  fixedWindow,
  gcra,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  slidingWindow,
} from '../../src/index.js';

describe('MemoryStore dump / restore', () => {
  it('100k keys (GCRA and a sliding window): every key’s next decision after restore equals the source’s', () => {
    const gAlg = gcra({ rate: 5, period: '1m', burst: 5 });
    const wAlg = slidingWindow({ limit: 3, window: '1m' });
    // The limiters give the fingerprint; decisions go straight to their key spaces (synchronous).
    const make = (store: MemoryStore) => {
      new RateLimiter({ algorithm: gAlg, store });
      new RateLimiter({ algorithm: wAlg, store, prefix: 'sw' });
      return [store.scope('sl:'), store.scope('sw@sw:')] as const;
    };
    const source = new MemoryStore({ maxKeys: 110_000 });
    const [g, w] = make(source);
    for (let i = 0; i < 50_000; i++) {
      const now = EPOCH + Math.floor(i / 10);
      for (let j = 0; j <= i % 7; j++) g.consume(`g${i}`, gAlg, 1, now);
      for (let j = 0; j <= i % 5; j++) w.consume(`w${i}`, wAlg, 1, now);
    }
    const snapshot = JSON.parse(JSON.stringify(source.dump()));
    expect(snapshot.keys).toHaveLength(100_000);
    const target = new MemoryStore({ maxKeys: 110_000 });
    const [g2, w2] = make(target);
    target.restore(snapshot);
    const now = EPOCH + 6000;
    const same = (a: Decision, b: Decision) =>
      a.allowed === b.allowed &&
      a.remaining === b.remaining &&
      a.retryAfterMs === b.retryAfterMs &&
      a.resetAfterMs === b.resetAfterMs &&
      a.limit === b.limit;
    const different: string[] = [];
    let denied = 0;
    for (let i = 0; i < 50_000; i++) {
      const a = g.consume(`g${i}`, gAlg, 1, now) as Decision;
      if (!same(a, g2.consume(`g${i}`, gAlg, 1, now) as Decision)) different.push(`g${i}`);
      const b = w.consume(`w${i}`, wAlg, 1, now) as Decision;
      if (!same(b, w2.consume(`w${i}`, wAlg, 1, now) as Decision)) different.push(`w${i}`);
      if (!a.allowed) denied++;
    }
    expect(different).toEqual([]);
    // the states carried over: some keys are still over their limit
    expect(denied).toBeGreaterThan(0);
  });

  it('refuses a snapshot taken under another algorithm or limit for the same prefix, and anything that is not a snapshot', async () => {
    const source = new MemoryStore();
    new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store: source });
    await new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store: source }).consume(
      'k',
    );
    const snapshot = source.dump();
    const other = new MemoryStore();
    new RateLimiter({ algorithm: gcra({ rate: 50, period: '1m' }), store: other });
    expect(() => other.restore(snapshot)).toThrow(SluiceConfigError);
    expect(() => other.restore(snapshot)).toThrow(/refused the snapshot: its keys under "sl:"/);
    // another family has its own prefix (sl@fw:): nothing of the snapshot is misread
    const windows = new MemoryStore();
    new RateLimiter({ algorithm: fixedWindow({ limit: 5, window: '1m' }), store: windows });
    expect(() => windows.restore(snapshot)).not.toThrow();
    expect(() => other.restore({ format: 'x' } as never)).toThrow(/"snapshot"/);
  });

  it('refuses a snapshot of the format before protocol keys carried their algorithm tag', () => {
    const store = new MemoryStore();
    new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store });
    const current = store.dump();
    expect(() => new MemoryStore().restore(current)).not.toThrow();
    // What 0.2 wrote: the same shape, format 1 (its protocol keys are no longer read).
    const old = { ...current, format: 'sluice.memory-store/1' } as never;
    expect(() => new MemoryStore().restore(old)).toThrow(SluiceConfigError);
    expect(() => new MemoryStore().restore(old)).toThrow(
      /refused a sluice\.memory-store\/1 snapshot .*start without it, take a new one/,
    );
    expect(current.format).not.toBe('sluice.memory-store/1');
  });
});
