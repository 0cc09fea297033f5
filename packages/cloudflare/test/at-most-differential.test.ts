// consumeAtMost on DurableObjectStore (core's stepAtMost on the object's storage) ==
// MemoryStore, on random traces mixing charges and partial grants.
import { itGrantsAsMemory } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { inProcessNamespace } from './in-process.js';

const RUNS = Number(process.env.SLUICE_DIFFERENTIAL_RUNS ?? 60);

describe('DurableObjectStore.consumeAtMost == MemoryStore (the TS grant)', () => {
  const store = new DurableObjectStore({ namespace: inProcessNamespace().namespace, shards: 2 });
  itGrantsAsMemory(() => store, RUNS);
});
