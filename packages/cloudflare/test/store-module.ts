// The store a conformance worker process builds (see @sluice/test-kit store-worker.ts): a
// DurableObjectStore reaching the objects of the workerd at SLUICE_WORKERD_URL.
import { DurableObjectStore } from '../src/index.js';
import { bridgeNamespace } from './bridge.js';

export async function createStore(): Promise<DurableObjectStore> {
  return new DurableObjectStore({ namespace: bridgeNamespace(process.env.SLUICE_WORKERD_URL!) });
}

export async function closeStore(): Promise<void> {}
