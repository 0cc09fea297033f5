import { loadVectors, replayVector, vectorRuns } from '@sluice/test-kit';
import { MemoryStore } from '../../src/index.js';

// Every case of shared/vectors/gcra.json, through toCellReply, on MemoryStore, with the
// clock under the test's control at a real epoch time.
describe('redis-cell vectors on MemoryStore', () => {
  const cases = loadVectors();

  it('has vectors to run', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(vectorRuns())('$label', async (run) => {
    expect(await replayVector(run, new MemoryStore())).toEqual(run.steps.map((s) => s.cell));
  });
});
