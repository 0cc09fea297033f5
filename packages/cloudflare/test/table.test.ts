import { join } from 'node:path';
import { bundleTableForWorkerd, type RunSummary, startWorkerd } from '@sluice/test-kit';

/** The table runner (runtimes/do-table-runner.ts) as one ES module for a Worker. */
const bundleRunner = () => bundleTableForWorkerd(join(__dirname, 'runtimes', 'do-table-runner.ts'));

describe('the shared behaviour table through @sluice/fetch and @sluice/hono on workerd, on the Durable Object store', () => {
  it('every row passes, but those listed with their reason in do-table-runner.ts', async () => {
    const worker = await startWorkerd(await bundleRunner(), {
      compatibilityFlags: [],
      durableObjects: { SLUICE: 'SluiceDurableObject' },
    });
    try {
      const res = await fetch(
        `${worker.url}/run${process.env.SLUICE_TABLE_NO_SWAP ? '?swap=0' : ''}`,
      );
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${text}\n${worker.output()}`);
      const summary = JSON.parse(text) as RunSummary & { skipped: string[]; stores: number };
      const failures = summary.failures.map((f) => `${f.name}\n  ${f.error.split('\n')[0]}`);
      expect(failures).toEqual([]);
      expect(summary.passed).toBe(summary.collected - summary.skipped.length);
      // 6 rows (UNSUPPORTED in the runner) x 2 adapters listed; every other row of every table
      // ran (70 each when written).
      expect(summary.skipped).toHaveLength(12);
      expect(summary.collected).toBeGreaterThanOrEqual(2 * 70);
      // The rows' stores really were Durable Object stores (one per MemoryStore and app).
      expect(summary.stores).toBeGreaterThan(100);
      console.log(
        `${summary.stores} DurableObjectStores; ${summary.passed} of ${summary.collected} rows passed, ${summary.skipped.length} listed`,
      );
    } finally {
      await worker.stop();
    }
  }, 300_000);
});
