// slidingWindow: the weighted estimate never exceeds the limit at an admission, equality
// with the per-window-counter model, exact times, denials consuming nothing.
import fc from 'fast-check';
import { slidingWindow } from '../../src/index.js';
import {
  admitted,
  drive,
  itDecidesLikeWindowModel,
  itHasExactTimes,
  RUNS,
  type WindowParams,
  windowScenarioArb,
} from './harness.js';
import { SlidingWindowModel } from './models.js';

const build = (p: WindowParams) => slidingWindow({ limit: p.limit, window: p.windowMs });

describe('slidingWindow: property tests', () => {
  it('the weighted estimate, this request included, never exceeds the limit at admission', async () => {
    await fc.assert(
      fc.asyncProperty(windowScenarioArb, async ({ p, steps }) => {
        const w = p.windowMs;
        const hits = admitted(await drive(build(p), steps));
        for (const hit of hits) {
          // Windows aligned to multiples of w since the Unix epoch; counts from admissions.
          const start = Math.floor(hit.t / w) * w;
          let prev = 0;
          let curr = 0;
          for (const { t, cost } of hits) {
            if (t >= start - w && t < start) prev += cost;
            else if (t >= start && t <= hit.t) curr += cost; // up to and including this one
          }
          // prev x (w - elapsed) / w + curr <= limit, in integers
          if (prev * (w - (hit.t - start)) + curr * w > p.limit * w) {
            throw new Error(`estimate ${prev}x(${w}-${hit.t - start})/${w} + ${curr} > ${p.limit}`);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  // retryAfterMs is one exact division of integers (in the TS engine and in the Redis
  // twin's decoder), so every field must match the model exactly, to the last bit.
  itDecidesLikeWindowModel(
    'decides exactly like the per-window-counter model',
    build,
    (p) => new SlidingWindowModel(p.limit, p.windowMs),
    { timeUlps: 0 },
  );

  itHasExactTimes(windowScenarioArb, ({ p }) => build(p));
});
