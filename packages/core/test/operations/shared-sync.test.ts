// The operations snapshot on a shared store (a fake OperationsSync standing for Redis):
// entries written by another process arrive through the notification, a missed
// notification is caught up by the version check every syncMs, decisions never call the
// store's operations, and releaseOperations stops the syncing.
import { gcra, LimitOperations, MemoryStore, RateLimiter, type Store } from '../../src/index.js';
import {
  type OperationEntry,
  type OperationsSync,
  releaseOperations,
} from '../../src/store-api.js';

class FakeShared implements OperationsSync {
  readonly shared = true;
  readonly syncMs: number;
  muted = false;
  calls = 0;
  #version = 0;
  readonly #entries = new Map<string, OperationEntry>();
  readonly #listeners = new Set<(v: number) => void>();
  constructor(syncMs: number) {
    this.syncMs = syncMs;
  }
  async load() {
    this.calls++;
    return { version: this.#version, entries: [...this.#entries.values()] };
  }
  async put(_prefix: string, entry: OperationEntry) {
    this.#entries.set(entry.id, structuredClone(entry));
    return this.#changed();
  }
  async remove(_prefix: string, id: string) {
    this.#entries.delete(id);
    return this.#changed();
  }
  async version() {
    this.calls++;
    return this.#version;
  }
  subscribe(_prefix: string, onChange: (v: number) => void) {
    this.#listeners.add(onChange);
    return () => this.#listeners.delete(onChange);
  }
  #changed() {
    const v = ++this.#version;
    if (!this.muted)
      setTimeout(() => {
        for (const l of this.#listeners) l(v);
      }, 1);
    return v;
  }
}

function sharedStore(syncMs: number): { store: Store; sync: FakeShared } {
  const memory = new MemoryStore();
  const sync = new FakeShared(syncMs);
  const store: Store = {
    consume: (key, algorithm, cost, now) => memory.consume(key, algorithm, cost, now),
    reset: (key) => memory.reset(key),
    operations: sync,
  };
  return { store, sync };
}

/** Polls `check` every 5 ms until it holds; the elapsed ms, or rejects after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ban = (id: string): OperationEntry => ({
  id: `ban:key:${id}`,
  kind: 'ban',
  subject: { key: id },
  until: Date.now() + 3_600_000,
  at: Date.now(),
});

describe('operations on a shared store', () => {
  it("another process's entry arrives by notification; a missed one by the version check within syncMs", async () => {
    const { store, sync } = sharedStore(40);
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 100, period: '1s' }), store });
    expect((await limiter.consume('k')).allowed).toBe(true);
    await sync.put('sl', ban('k')); // written by "another process"
    await within(2000, async () => !(await limiter.consume('k')).allowed);
    sync.muted = true;
    await sync.remove('sl', 'ban:key:k');
    await within(3000, async () => (await limiter.consume('k')).allowed);
    releaseOperations(sync);
  });

  it('decisions never call the store’s operations: 0 extra round trips per decision', async () => {
    const { store, sync } = sharedStore(60_000);
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 10, period: '1s' }), store });
    const ops = new LimitOperations({ store });
    await ops.ban({ key: 'b' }, { for: '1h' });
    await limiter.consume('warm');
    const before = sync.calls;
    for (let i = 0; i < 1000; i++) await limiter.consume(i % 2 === 0 ? 'b' : `k${i}`);
    expect(sync.calls).toBe(before);
    expect((await limiter.consume('b')).allowed).toBe(false);
    releaseOperations(sync);
  });

  it('releaseOperations stops syncing: a later change is not seen', async () => {
    const { store, sync } = sharedStore(20);
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 100, period: '1s' }), store });
    await limiter.consume('k');
    releaseOperations(sync);
    await sync.put('sl', ban('k'));
    await new Promise((r) => setTimeout(r, 150));
    expect((await limiter.consume('k')).allowed).toBe(true);
  });
});
