// RedisStore on a real 3-master Redis Cluster (ioredis `Cluster`): every algorithm decides
// like MemoryStore there, redis-cell vectors hold, the server clock and NOSCRIPT reloads
// work on every node; and keys: the slot is a function of our hash tag only (user text with
// braces or of any length cannot choose it), every Redis key of one limit shares one slot,
// the key length is bounded, and the untagged form (standalone Redis) hashes the same keys.
import { createHash } from 'node:crypto';
import {
  type Decision,
  MemoryStore,
  RateLimiter,
  SluiceConfigError,
  toCellReply,
} from '@sluice/core';
import {
  buildVectorAlgorithm,
  EPOCH,
  loadVectors,
  type RedisCluster,
  type RedisProcess,
  startCluster,
  VECTOR_EPOCH,
} from '@sluice/test-kit';
import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import { Cluster } from 'ioredis';
import { RedisStore } from '../src/index.js';
import { MAX_TAG_LENGTH, redisKey } from '../src/redis-key.js';
import {
  type AlgorithmSpec,
  buildAlgorithm,
  HUNDRED_PER_HOUR,
  specLabel,
} from './algorithm-specs.js';

let cluster: RedisCluster;
let client: Cluster;

beforeAll(async () => {
  cluster = await startCluster();
  client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
  await client.ping();
}, 60_000);

afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
}, 30_000);

/** Redis Cluster's hash tag rule: the text between the first `{` and the next `}`, if any. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

/** The node of `cluster` whose slot ranges hold `slot` (from CLUSTER SLOTS). */
async function ownerOf(slot: number): Promise<RedisProcess> {
  const slots = await client.cluster('SLOTS');
  const range = slots.find(([from, to]) => from <= slot && slot <= to)!;
  const port = range[2]![1];
  return cluster.nodes.find((n) => n.port === port)!;
}

/** The documented key mark of each algorithm after the prefix (none for GCRA). */
const KEY_MARK: Record<string, string> = {
  gcra: '',
  'fixed-window': '@fw',
  'sliding-window': '@sw',
  'sliding-log': '@log',
  'calendar-window': '@cal',
};

/** A limiter whose store failures fail the test instead of being decided by a fallback. */
function strictLimiter(
  spec: AlgorithmSpec,
  store: RedisStore,
  clock?: () => number,
  prefix = 'sl',
): RateLimiter {
  return new RateLimiter({
    algorithm: buildAlgorithm(spec),
    store,
    prefix,
    ...(clock ? { clock } : {}),
    onStoreError: 'deny',
    logger: {
      warn: (message) => {
        throw new Error(message);
      },
    },
  });
}

/** Small, quick-moving versions of every algorithm for random traces on the Cluster. */
const SMALL: { spec: AlgorithmSpec; scale: number }[] = [
  { spec: { factory: 'gcra', args: [{ rate: 3000, period: '1s', burst: 5 }] }, scale: 2 },
  { spec: { factory: 'cellThrottle', args: [4, 3, 2] }, scale: 667 },
  { spec: { factory: 'leakyBucket', args: [{ capacity: 5, leakRate: 0.3 }] }, scale: 3334 },
  { spec: { factory: 'tokenBucket', args: [{ capacity: 4, refillRate: 7 }] }, scale: 143 },
  { spec: { factory: 'fixedWindow', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
  { spec: { factory: 'slidingWindow', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
  { spec: { factory: 'slidingLog', args: [{ limit: 5, window: 1000 }] }, scale: 1000 },
];

describe('every algorithm on the Cluster', () => {
  it.each(SMALL.map((c) => ({ ...c, label: specLabel(c.spec) })))(
    '$label: 40 random traces on keys spread over all nodes decide like MemoryStore',
    async ({ spec, scale }) => {
      const store = new RedisStore({ client, clock: 'client', timeoutMs: 5000 });
      const memory = new MemoryStore();
      const limit = buildAlgorithm(spec).limit;
      const s = Math.ceil(scale);
      const stepArb = fc.record({
        dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: s }), fc.integer({ max: 4 * s })),
        cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: limit + 2 })),
      });
      const prefix = `traces:${spec.factory}`;
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 86_400_000 }),
          fc.array(stepArb, { minLength: 1, maxLength: 25 }),
          async (start, steps) => {
            let now = EPOCH + start;
            const clock = () => now;
            const key = `user-${run++}`;
            const onRedis = strictLimiter(spec, store, clock, prefix);
            const onMemory = new RateLimiter({
              algorithm: buildAlgorithm(spec),
              store: memory,
              clock,
              prefix: `${prefix}:${run}`,
            });
            const got: Decision[] = [];
            const want: Decision[] = [];
            for (const { dt, cost } of steps) {
              now += Math.max(0, dt);
              got.push(await onRedis.consume(key, { cost }));
              want.push(await onMemory.consume(key, { cost }));
            }
            expect(got).toStrictEqual(want);
          },
        ),
        { numRuns: 40 },
      );
      // The keys really were spread: every master holds some of them.
      const perNode = await Promise.all(
        // `{<prefix>:` under GCRA, `{<prefix>@fw:` (the algorithm's key mark) under the others.
        cluster.nodes.map(async (n) => (await n.cli('--scan', '--pattern', `{${prefix}*`)).trim()),
      );
      expect(perNode.map((keys) => keys.length > 0)).toEqual([true, true, true]);
    },
    30_000,
  );

  it('redis-cell vectors hold on the Cluster', async () => {
    const store = new RedisStore({ client, clock: 'client' });
    for (const c of loadVectors()) {
      let now = VECTOR_EPOCH;
      const limiter = new RateLimiter({
        algorithm: buildVectorAlgorithm(c.factory, c.args),
        store,
        prefix: `vec:${c.name}`,
        clock: () => now,
        onStoreError: 'deny',
      });
      const replies = [];
      for (const step of c.steps) {
        now = VECTOR_EPOCH + step.t;
        replies.push(toCellReply(await limiter.consume('k', { cost: step.cost })));
      }
      expect({ name: c.name, replies }).toEqual({
        name: c.name,
        replies: c.steps.map((s) => s.cell),
      });
    }
  });

  it.each(HUNDRED_PER_HOUR.map((spec) => ({ spec, label: specLabel(spec) })))(
    'server clock (Redis TIME on the owning node): $label admits 100 then denies',
    async ({ spec }) => {
      const store = new RedisStore({ client });
      const limiter = strictLimiter(spec, store, undefined, `server-clock:${spec.factory}`);
      const decisions = await Promise.all(
        Array.from({ length: 120 }, (_, i) => limiter.consume(`k${i % 3}`)),
      );
      // Three keys (on whichever nodes they hash to), 40 calls each: all admitted.
      expect(decisions.every((d) => d.allowed)).toBe(true);
      const more = [];
      for (let i = 0; i < 70; i++) more.push(await limiter.consume('k0'));
      expect(more.filter((d) => d.allowed)).toHaveLength(60);
      expect(more.at(-1)).toMatchObject({ allowed: false, remaining: 0 });
    },
  );

  /** SCRIPT FLUSH on every master, through the Cluster client's own node connections. */
  const flushScripts = async () => {
    const masters = client.nodes('master');
    expect(masters).toHaveLength(3);
    await Promise.all(masters.map((node) => node.script('FLUSH')));
  };

  it('SCRIPT FLUSH on every node between calls is invisible (NOSCRIPT reloads)', async () => {
    const store = new RedisStore({ client, clock: 'client' });
    for (const spec of HUNDRED_PER_HOUR) {
      let now = EPOCH;
      const limiter = strictLimiter(spec, store, () => now, `flush:${spec.factory}`);
      const allowed = [];
      for (let i = 0; i < 103; i++) {
        if (i % 10 === 0) await flushScripts();
        now += 1;
        allowed.push((await limiter.consume(`k${i % 2}`)).allowed);
      }
      // Two keys, limit 100 each: nothing denied, then exhaust one key.
      expect(allowed.every(Boolean)).toBe(true);
      await flushScripts();
      const d = await limiter.consume('k0', { cost: 48 }); // k0 took 52 of 100
      expect({ spec: specLabel(spec), allowed: d.allowed, remaining: d.remaining }).toEqual({
        spec: specLabel(spec),
        allowed: true,
        remaining: 0,
      });
    }
  });
});

describe('keys and slots', () => {
  const sha = (text: string) => `#${createHash('sha1').update(text).digest('base64url')}`;

  it('calculateSlot agrees with the Cluster (CLUSTER KEYSLOT) on our keys', async () => {
    const node = cluster.nodes[0]!;
    const keys = [
      'user:42',
      'a{x}',
      'a{y}',
      '}{',
      '{}',
      '',
      'x'.repeat(5000),
      'ünïcödé {ключ}',
    ].map((k) => redisKey('app:', k));
    for (const key of keys) {
      expect(Number((await node.cli('CLUSTER', 'KEYSLOT', key)).trim())).toBe(calculateSlot(key));
    }
  });

  it('the slot is a function of our hash tag only, and the key length is bounded (property)', () => {
    const prefixArb = fc.string({ maxLength: 20 }).filter((p) => !/[{}]/.test(p));
    const keyArb = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: fc.constantFrom('{', '}', 'a', 'x', ':', '#'), maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ minLength: MAX_TAG_LENGTH - 2, maxLength: MAX_TAG_LENGTH + 2 }),
      fc.integer({ min: 1, max: 20_000 }).map((n) => 'z'.repeat(n)),
    );
    fc.assert(
      fc.property(prefixArb, keyArb, (prefix, user) => {
        const store = new RedisStore({ client, prefix });
        const key = store.keyFor(user);
        expect(key).toBe(redisKey(prefix, user));
        const plain =
          user.length > 0 &&
          user.length <= MAX_TAG_LENGTH &&
          !user.startsWith('#') &&
          !/[{}]/.test(user);
        // The tag Redis reads is exactly ours: the user key itself, or its hash.
        const tag = plain ? user : sha(user);
        expect(hashTag(key)).toBe(tag);
        expect(key).toBe(`${prefix}{${tag}}`);
        expect(calculateSlot(key)).toBe(calculateSlot(tag));
        expect(key.length).toBeLessThanOrEqual(prefix.length + 2 + MAX_TAG_LENGTH);
        // Untagged (a standalone Redis): the same text without braces, so never a brace after
        // the prefix and never equal to a tagged key.
        expect(redisKey(prefix, user, false)).toBe(`${prefix}${tag}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('braces in user text cannot choose the slot: a{x} does not land where {x} says', () => {
    const store = new RedisStore({ client });
    const slotX = calculateSlot('x');
    const keys = Array.from({ length: 64 }, (_, i) => store.keyFor(`user${i}{x}`));
    const slots = keys.map((k) => calculateSlot(k));
    // Were the user's tag honoured, all 64 would sit in slot('x').
    expect(slots.filter((s) => s === slotX).length).toBeLessThanOrEqual(1);
    expect(new Set(slots).size).toBeGreaterThanOrEqual(60);
    expect(store.keyFor('a{x}')).not.toBe(store.keyFor('a{y}'));
    expect(hashTag(store.keyFor('a{x}'))).not.toBe('x');
    expect(hashTag(store.keyFor('a{y}'))).not.toBe('y');
    // Same for the limiter's full key ('<prefix>:<key>') and for a closing brace first.
    expect(hashTag(store.keyFor('sl:a{x}'))).toBe(sha('sl:a{x}'));
    expect(hashTag(store.keyFor('}{x}'))).toBe(sha('}{x}'));
  });

  it('a literal "#<hash>" key does not share the bucket of the key it hashes to (both forms)', () => {
    const long = 'y'.repeat(MAX_TAG_LENGTH + 1);
    for (const tagged of [true, false]) {
      expect(redisKey('', sha(long), tagged)).not.toBe(redisKey('', long, tagged));
      expect(redisKey('', '{x}', tagged)).not.toBe(redisKey('', sha('{x}'), tagged));
    }
  });

  it('on a Cluster the keys are tagged by default, and hashTag: false is a config error', async () => {
    const store = new RedisStore({ client, prefix: 'tagged:' });
    expect(store.hashTag).toBe(true);
    await strictLimiter(HUNDRED_PER_HOUR[0]!, store).consume('user:1');
    // The Redis key actually written, on the node owning the slot of 'sl:user:1'.
    const owner = await ownerOf(calculateSlot('sl:user:1'));
    expect((await owner.cli('KEYS', 'tagged:*')).trim().split('\n')).toEqual([
      'tagged:{sl:user:1}',
    ]);
    expect(new RedisStore({ client, hashTag: true }).keyFor('k')).toBe('{k}');
    expect(() => new RedisStore({ client, hashTag: false })).toThrow(/hashTag/);
  });

  it('a store prefix with braces (which would pin every key to one slot) is a config error', () => {
    expect(() => new RedisStore({ client, prefix: 'app{1}:' })).toThrow(SluiceConfigError);
    expect(() => new RedisStore({ client, prefix: '}' })).toThrow(/prefix/);
    expect(() => new RedisStore({ client, prefix: 'app:' })).not.toThrow();
  });

  it('on the Cluster, every Redis key of one limit shares the slot of our tag, whatever the user text', async () => {
    const users = ['plain-user', 'a{x}', 'a{y}', '{', '}x{', 'w'.repeat(10_000), '#abc'];
    for (const user of users) {
      // One limiter key under every algorithm (each algorithm but GCRA marks its prefix:
      // `sl@fw:`…, so each kind has a tag, and a slot, of its own).
      const bySlot = new Map<number, string[]>();
      for (const [i, spec] of HUNDRED_PER_HOUR.entries()) {
        const store = new RedisStore({ client, prefix: `parts${i}:` });
        const limiter = strictLimiter(spec, store);
        await limiter.consume(user);
        const key = store.keyFor(`sl${KEY_MARK[limiter.algorithm.kind]}:${user}`);
        expect(key.length).toBeLessThanOrEqual(`parts0:`.length + 2 + MAX_TAG_LENGTH);
        const slot = calculateSlot(key);
        bySlot.set(slot, [...(bySlot.get(slot) ?? []), key]);
      }
      // Each key was written on the node owning its tag's slot (with every other Redis key of
      // its limit: a penalty's `!block`…).
      for (const [slot, keys] of bySlot) {
        const owner = await ownerOf(slot);
        const inSlot = (await owner.cli('CLUSTER', 'GETKEYSINSLOT', String(slot), '10000'))
          .trim()
          .split('\n');
        expect(inSlot).toEqual(expect.arrayContaining(keys));
      }
    }
  }, 30_000);
});
