// consumeAtMost on DurableObjectStore (core's stepAtMost on the object's storage) ==
// MemoryStore, on random traces mixing charges and partial grants.
import { MemoryStore } from '@sluice/core';
import { AT_MOST_ALGORITHMS, atMostOpsArb, EPOCH, runAtMostTrace } from '@sluice/test-kit';
import fc from 'fast-check';
import { DurableObjectStore } from '../src/index.js';
import { inProcessNamespace } from './in-process.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 60);

describe('DurableObjectStore.consumeAtMost == MemoryStore (the TS grant)', () => {
  const store = new DurableObjectStore({ namespace: inProcessNamespace().namespace, shards: 2 });
  let run = 0;
  it.each(AT_MOST_ALGORITHMS.map((a) => [a.name, a] as const))('%s', async (_name, spec) => {
    const algorithm = spec.build();
    await fc.assert(
      fc.asyncProperty(atMostOpsArb(spec.scale, algorithm.limit), async (ops) => {
        const key = `k${run++}`;
        const memory = new MemoryStore({ maxKeys: 8 });
        const expected = await runAtMostTrace(memory, algorithm, key, ops, EPOCH);
        expect(await runAtMostTrace(store, algorithm, key, ops, EPOCH)).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});
