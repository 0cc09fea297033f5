// MemoryStore#dump()'s fingerprint in a bundle without LimitOperations: the store's limiters
// are fingerprinted whether or not the operations machinery is loaded. This file imports the
// modules an app limited through a RateLimiter and an HttpLimiter loads, never the package
// index (which exports LimitOperations); the first test proves the operations are absent.
import { gcra } from '../../src/algorithms/gcra.js';
import { slidingWindow } from '../../src/algorithms/sliding-window.js';
import { SluiceConfigError } from '../../src/common/errors.js';
import { HttpLimiter } from '../../src/http/limiter/http-limiter.js';
import { RateLimiter } from '../../src/limits/rate-limiter.js';
import { MemoryStore } from '../../src/stores/memory-store.js';

const view = { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {} };

describe('MemoryStore#dump() without LimitOperations', () => {
  it('runs without the operations machinery (the store has no operations)', () => {
    expect(new MemoryStore().operations).toBeUndefined();
  });

  it('fingerprints each RateLimiter and HTTP limit on the store, and only those', async () => {
    const store = new MemoryStore();
    const g = gcra({ rate: 5, period: '1m' });
    const w = slidingWindow({ limit: 3, window: '1m' });
    const a = new RateLimiter({ algorithm: g, store });
    const b = new RateLimiter({ algorithm: w, store, prefix: 'sw' });
    const http = new HttpLimiter({ store, limit: '10/1m', clock: () => 1_000_000 });
    // another store's limiter is not this store's
    const elsewhere = new RateLimiter({ algorithm: w, store: new MemoryStore(), prefix: 'x' });
    await a.consume('k');
    await b.consume('k');
    await http.check(view);
    const fingerprint = store.dump().fingerprint;
    expect(fingerprint).toEqual(
      expect.arrayContaining([
        ['sl:', g.description],
        ['sw@sw:', w.description],
      ]),
    );
    const prefixes = fingerprint.map(([p]) => p);
    // the HTTP limit's key space, under its own prefix
    expect(prefixes.filter((p) => p !== 'sl:' && p !== 'sw@sw:')).toHaveLength(1);
    expect(prefixes).not.toContain('x@sw:');
    expect(elsewhere).toBeDefined();
  });

  it('restore() refuses a snapshot taken under another limit for the same prefix', async () => {
    const source = new MemoryStore();
    await new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store: source }).consume(
      'k',
    );
    const snapshot = JSON.parse(JSON.stringify(source.dump()));
    expect(snapshot.fingerprint).toHaveLength(1);
    const other = new MemoryStore();
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 50, period: '1m' }), store: other });
    expect(() => other.restore(snapshot)).toThrow(SluiceConfigError);
    expect(() => other.restore(snapshot)).toThrow(/refused the snapshot: its keys under "sl:"/);
    const same = new MemoryStore();
    const twin = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store: same });
    same.restore(snapshot);
    expect(await twin.consume('k', { cost: 0 })).toMatchObject({ remaining: 4 });
    expect(limiter).toBeDefined();
  });
});
