// fixedWindow: at most `limit` units per window (the window opening at the first admitted
// hit), equality with the count + start model, exact times, denials consuming nothing.
import fc from 'fast-check';
import { fixedWindow } from '../../src/index.js';
import {
  admitted,
  drive,
  itDecidesLikeWindowModel,
  itHasExactTimes,
  RUNS,
  type WindowParams,
  windowScenarioArb,
} from './harness.js';
import { FixedWindowModel } from './models.js';

const build = (p: WindowParams) => fixedWindow({ limit: p.limit, window: p.windowMs });

describe('fixedWindow: property tests', () => {
  it('never admits more than limit units per window', async () => {
    await fc.assert(
      fc.asyncProperty(windowScenarioArb, async ({ p, steps }) => {
        const hits = admitted(await drive(build(p), steps));
        // Rebuild the windows from the admissions alone: a window opens at the first
        // admission at or after the previous window's end and lasts windowMs.
        let end = Number.NEGATIVE_INFINITY;
        let units = 0;
        for (const { t, cost } of hits) {
          if (t >= end) {
            end = t + p.windowMs;
            units = 0;
          }
          units += cost;
          if (units > p.limit) {
            throw new Error(`${units} units admitted in the window ending at ${end}`);
          }
        }
        // Consequence: any interval of length windowMs meets at most two windows.
        for (let i = 0; i < hits.length; i++) {
          let inSpan = 0;
          for (let j = i; j < hits.length && hits[j]!.t < hits[i]!.t + p.windowMs; j++) {
            inSpan += hits[j]!.cost;
          }
          if (inSpan > 2 * p.limit) throw new Error(`${inSpan} units within one window length`);
        }
      }),
      { numRuns: RUNS },
    );
  });

  itDecidesLikeWindowModel(
    'decides exactly like the count + start model',
    build,
    (p) => new FixedWindowModel(p.limit, p.windowMs),
  );

  itHasExactTimes(windowScenarioArb, ({ p }) => build(p));
});
