import { join } from 'node:path';
import { describeStoreConformance, FUTURE_EPOCH, type WorkerdProcess } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { bridgeNamespace } from './bridge.js';
import { startDoWorker } from './workerd.js';

// The store conformance suite (redis-cell vectors, random traces of every algorithm against
// MemoryStore, all-or-nothing under concurrency, 4 processes racing on one key, a soak) on
// real Durable Objects in workerd: the DurableObjectStore runs here, in Node, and reaches
// the objects through the fixture Worker's bridge, so every decision is the object's.
let worker: WorkerdProcess;

describeStoreConformance({
  name: 'DurableObjectStore (SluiceDurableObject on workerd)',
  async setup() {
    worker = await startDoWorker();
  },
  async teardown() {
    await worker?.stop();
  },
  clientClockStore() {
    return new DurableObjectStore({ namespace: bridgeNamespace(worker.url) });
  },
  // The object's alarm sweeps states expired a minute before real time: traces in 2026 would
  // lose live states whenever it fires mid-trace.
  epoch: FUTURE_EPOCH,
  workerModule: join(__dirname, 'store-module.ts'),
  workerEnv: () => ({ SLUICE_WORKERD_URL: worker.url }),
});
