// fixedWindow: at most `limit` units per window (the window opening at the first admitted
// hit), equality with the count + start model, exact times, denials consuming nothing.
import fc from 'fast-check';
import { fixedWindow } from '../../src/index.js';
import {
  admitted,
  checkDecisionInvariants,
  checkRetryByReplay,
  drive,
  driveSteps,
  expectSameAsModel,
  RUNS,
  traceArb,
  windowParamsArb,
} from './harness.js';
import { FixedWindowModel } from './models.js';

const scenarioArb = windowParamsArb.chain((p) =>
  traceArb(p.windowMs, p.limit).map((steps) => ({ p, steps })),
);

describe('fixedWindow: property tests', () => {
  it('never admits more than limit units per window', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ p, steps }) => {
        const hits = admitted(
          await drive(fixedWindow({ limit: p.limit, window: p.windowMs }), steps),
        );
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

  it('decides exactly like the count + start model', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ p, steps }) => {
        const algorithm = fixedWindow({ limit: p.limit, window: p.windowMs });
        expectSameAsModel(await drive(algorithm, steps), new FixedWindowModel(p.limit, p.windowMs));
        // step() threaded by hand decides the same as through the limiter and store.
        expectSameAsModel(driveSteps(algorithm, steps), new FixedWindowModel(p.limit, p.windowMs));
      }),
      { numRuns: RUNS },
    );
  });

  it('retryAfterMs, resetAfterMs and remaining are exact; denials consume nothing', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ p, steps }) => {
        const algorithm = fixedWindow({ limit: p.limit, window: p.windowMs });
        const observed = await drive(algorithm, steps);
        checkDecisionInvariants(algorithm, observed);
        await checkRetryByReplay(algorithm, observed);
      }),
      { numRuns: RUNS },
    );
  });
});
