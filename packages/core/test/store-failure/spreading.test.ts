// FailSafeStore under faults that must not spread: a key's unreadable state is no store
// failure, a breaker that opens answers the calls waiting on its domain at once, and a
// failing domain that no longer serves its keys (a Cluster failover) is retired.
import { type Decision, fixedWindow, penalty, type Store } from '../../src/index.js';
import { type Algorithm, FailSafeStore, parsePenalty, StoreKeyError } from '../../src/store-api.js';

const algorithm = fixedWindow({ limit: 5, window: '1m' });

function decision(a: Algorithm, cost: number, allowed = true): Decision {
  return {
    allowed,
    limit: a.limit,
    remaining: allowed ? a.limit - cost : 0,
    retryAfterMs: allowed ? 0 : 1000,
    resetAfterMs: 1000,
    cost,
  };
}

function spyLogger() {
  const messages: string[] = [];
  return { messages, logger: { warn: (m: string) => void messages.push(m) } };
}

describe('a key whose state its algorithm cannot read', () => {
  it('is decided by the policy, logged once per algorithm without the key, and opens no breaker', async () => {
    const inner: Store = {
      consume: (key, a, cost) =>
        key === 'user:carol'
          ? Promise.reject(new StoreKeyError(a.description, 'the key holds another Redis type'))
          : Promise.resolve(decision(a, cost)),
      reset: () => Promise.resolve(),
    };
    const { messages, logger } = spyLogger();
    const store = new FailSafeStore({ store: inner, onStoreError: 'deny', logger: logger });
    for (let i = 0; i < 3; i++) {
      expect(await store.consume('user:carol', algorithm, 1, 0)).toMatchObject({
        allowed: false, // 'deny' decides it
      });
      expect(await store.consume(`user:${i}`, algorithm, 1, 0)).toMatchObject({
        allowed: true,
        remaining: 4,
      });
    }
    expect(store.failing).toBe(false);
    expect(store.breakerState('user:carol')).toBe('closed');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/fixedWindow\(5 per 60000 ms\).*another Redis type/);
    expect(messages[0]).not.toMatch(/carol/);
  });
});

describe('a breaker that opens', () => {
  it('asks the store to answer the calls already waiting on that domain (failPending), once per opening', async () => {
    const failed: (string | undefined)[] = [];
    let fail: ((e: Error) => void) | undefined;
    const inner: Store = {
      consume: () => new Promise<Decision>((_, reject) => (fail ??= reject)),
      reset: () => Promise.resolve(),
      failureDomain: (key) => (key.startsWith('a') ? 'node-a' : 'node-b'),
      failPending: (domain) => void failed.push(domain),
    };
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'deny',
      logger: spyLogger().logger,
    });
    const first = store.consume('a1', algorithm, 1, 0);
    void store.consume('a2', algorithm, 1, 0);
    fail!(new Error('timed out'));
    await first;
    expect(failed).toEqual(['node-a']);
  });
});

describe('a failing domain that no longer serves its keys (a failover)', () => {
  it('is retired: the store answers again, says so once, and the next outage is logged', async () => {
    const time = { ms: 0 };
    let masterOfA = 'old-a';
    const down = new Set(['old-a']);
    const inner: Store = {
      consume: (key, a, cost) =>
        down.has(inner.failureDomain!(key))
          ? Promise.reject(new Error('connection refused'))
          : Promise.resolve(decision(a, cost)),
      reset: () => Promise.resolve(),
      failureDomain: (key) => (key.startsWith('a') ? masterOfA : 'b'),
    };
    const { messages, logger } = spyLogger();
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'insurance',
      logger: logger,
      breaker: {
        cooldownMs: 1000,
        clock: () => time.ms,
      },
    });
    await store.consume('a1', algorithm, 1, 0);
    expect(store.failing).toBe(true);
    masterOfA = 'new-a'; // the replica is promoted
    time.ms += 1500;
    expect(await store.consume('a1', algorithm, 1, 0)).toMatchObject({ remaining: 4 });
    expect(store.failing).toBe(false);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatch(/answering again/);
    down.add('b');
    await store.consume('b1', algorithm, 1, 0);
    expect(messages).toHaveLength(3);
    expect(messages[2]).toMatch(/store failing/);
  });
});

describe('the over-limit cache and a penalty (blockFor)', () => {
  it('keeps a blocked key denied through an outage, with what is left of the block', async () => {
    const blocking = penalty(algorithm, parsePenalty('1m'));
    let up = true;
    const inner: Store = {
      consume: (_key, a, cost) =>
        up
          ? Promise.resolve({
              allowed: false,
              limit: a.limit,
              remaining: 0,
              retryAfterMs: 60_000,
              resetAfterMs: 60_000,
              cost,
            })
          : Promise.reject(new Error('connection refused')),
      reset: () => Promise.resolve(),
    };
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'insurance',
      logger: spyLogger().logger,
    });
    await store.consume('mallory', blocking, 1, 0);
    up = false;
    for (const at of [10, 1000, 30_000]) {
      for (const cost of [0, 1, 2]) {
        expect(await store.consume('mallory', blocking, cost, at)).toMatchObject({
          allowed: false,
          remaining: 0,
          retryAfterMs: 60_000 - at,
          resetAfterMs: 60_000 - at,
          cost,
        });
      }
    }
    // Past the block, the policy decides ('insurance': a fresh in-process bucket).
    expect((await store.consume('mallory', blocking, 1, 60_000)).allowed).toBe(true);
  });
});

describe('a request across domains whose failure names the domain it waited on', () => {
  it("counts against that domain's breaker only: the other domain's keys stay decided by the store", async () => {
    const inner: Store = {
      consume: (_key, a, cost) => Promise.resolve(decision(a, cost)),
      consumeAll: () =>
        Promise.reject(
          Object.assign(new Error('sluice: the store did not answer within 500 ms'), {
            failureDomain: 'node-a',
          }),
        ),
      reset: () => Promise.resolve(),
      failureDomain: (key) => (key.startsWith('a') ? 'node-a' : 'node-b'),
    };
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'deny',
      logger: spyLogger().logger,
    });
    const decided = await store.consumeAll(
      [
        { key: 'a1', algorithm, cost: 1 },
        { key: 'b1', algorithm, cost: 1 },
      ],
      0,
    );
    expect(decided.map((d) => d.allowed)).toEqual([false, false]); // 'deny' decided it
    expect(store.breakerState('a1')).toBe('open');
    expect(store.breakerState('b1')).toBe('closed');
    expect(await store.consume('b2', algorithm, 1, 0)).toMatchObject({ allowed: true });
  });
});
