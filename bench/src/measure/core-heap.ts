// bench:core's heap bytes per key and its scale rows (`--scale`): the same awaited decision
// over 1k, 100k and 1M resident keys, with the store overhead per key at each size.
import { MemoryStore, RateLimiter } from '@sluice/core';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { type HeapSubject, RLF_HEAP, rlf, sluiceHeap } from '../cases/core.js';
import type { CoreReport } from '../report/types.js';
import { interleave, median, residentAlgo } from './common.js';
import {
  check,
  heapDelta,
  loopLimiter,
  loopRlf,
  loopStore,
  makeKeys,
  userKeys,
} from './core-loops.js';

/** Module-level holder: keys that must outlive a store overhead measure are kept here. */
let retainedKeys: string[] = [];

/** Heap bytes per key of `subject` at `n` keys: [store overhead, incl. key text]. */
export async function heapPerKey(subject: HeapSubject, n: number): Promise<[number, number]> {
  // Store overhead: the keys exist (and stay alive) before the baseline.
  retainedKeys = makeKeys(n);
  const overhead = await heapDelta(
    () => subject.overhead(retainedKeys),
    n,
    (built) => releaseRlf(built, retainedKeys),
  );
  retainedKeys = [];
  // Key text included: keys are built during insertion and held only by the limiter.
  const withKeys = await heapDelta(
    () => subject.withKeys(n),
    n,
    (built) => releaseRlf(built, userKeys(n)),
  );
  return [overhead, withKeys];
}

/** RLF keeps each key alive 60 s by a timer: deleting the keys frees a measured store now. */
async function releaseRlf(built: unknown, keys: Iterable<string>): Promise<void> {
  if (built instanceof RateLimiterMemory) for (const key of keys) await built.delete(key);
}

type ScaleRow = NonNullable<CoreReport['scale']>['rows'][number];

/** One scale row at `n` resident keys: heap first, then `rounds` interleaved rounds of `ms`. */
export async function scaleAt(n: number, rounds: number, ms: number): Promise<ScaleRow> {
  retainedKeys = makeKeys(n);
  const heapSluice = await heapDelta(() => sluiceHeap(residentAlgo, n).overhead(retainedKeys), n);
  const heapRlf = await heapDelta(
    () => RLF_HEAP.overhead(retainedKeys),
    n,
    (built) => releaseRlf(built, retainedKeys),
  );
  const keys = retainedKeys;
  retainedKeys = [];

  const limiter = new RateLimiter({
    algorithm: residentAlgo(),
    store: new MemoryStore({ maxKeys: n }),
  });
  const peer = rlf();
  const store = new MemoryStore({ maxKeys: n });
  const algorithm = residentAlgo();
  // Fill: every key once in each subject, not measured (also the JIT warm-up).
  for (const key of keys) {
    check(await limiter.consume(key));
    await peer.consume(key);
    check(store.consume(key, algorithm, 1, Date.now()));
  }
  const [sluiceRounds, rlfRounds, storeRounds] = await interleave(
    [
      () => loopLimiter(limiter, keys, ms),
      () => loopRlf(peer, keys, ms),
      () => loopStore(store, algorithm, keys, ms),
    ],
    rounds,
    (loop) => loop(),
    { label: `scale ${n} keys: ` },
  );
  const liveKeys = store.size;
  if (liveKeys !== n) throw new Error(`scale ${n}: ${liveKeys} live keys, expected ${n}`);
  const rates = {
    sluice: median(sluiceRounds),
    rlf: median(rlfRounds),
    store: median(storeRounds),
  };
  return { keys: n, ...rates, sluiceRounds, rlfRounds, storeRounds, heapSluice, heapRlf, liveKeys };
}
