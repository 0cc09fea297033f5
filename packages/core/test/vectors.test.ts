import { MemoryStore, RateLimiter, toCellReply } from '../src/index.js';
import { buildVectorAlgorithm, loadVectors, VECTOR_EPOCH } from './vectors.js';

// Every case of shared/vectors/gcra.json, through toCellReply, on MemoryStore, with the
// clock under the test's control at a real epoch time.
describe('redis-cell vectors on MemoryStore', () => {
  const cases = loadVectors();

  it('has vectors to run', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  const runs = cases.flatMap((c) => {
    const list = [
      { label: `${c.name} [${c.factory}]`, factory: c.factory, args: c.args, steps: c.steps },
    ];
    if (c.equivalent) {
      list.push({ label: `${c.name} [${c.equivalent.factory}]`, ...c.equivalent, steps: c.steps });
    }
    return list;
  });

  it.each(runs)('$label', async ({ factory, args, steps }) => {
    let now = VECTOR_EPOCH;
    const limiter = new RateLimiter({
      algorithm: buildVectorAlgorithm(factory, args),
      store: new MemoryStore(),
      clock: () => now,
    });
    const replies = [];
    for (const step of steps) {
      now = VECTOR_EPOCH + step.t;
      replies.push(toCellReply(await limiter.consume('vector-key', { cost: step.cost })));
    }
    expect(replies).toEqual(steps.map((s) => s.cell));
  });
});
