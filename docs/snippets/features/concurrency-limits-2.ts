import { concurrency, RateLimiter } from '@sluice/core';

const leases = new RateLimiter({ algorithm: concurrency({ limit: 2, leaseMs: '30s' }) });

const at = Date.now();
const lease = await leases.consume('job:42');
if (lease.allowed) {
  try {
    await doWork();
  } finally {
    await leases.refund('job:42', { charge: lease, atMs: at }); // release
  }
}

async function doWork() {}
