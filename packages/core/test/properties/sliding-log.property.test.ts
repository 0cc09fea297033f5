// slidingLog: at most `limit` units in every sliding window, equality with the plain
// timestamp-list model, exact times, denials consuming (and logging) nothing.
import fc from 'fast-check';
import { slidingLog } from '../../src/index.js';
import {
  admitted,
  drive,
  itDecidesLikeWindowModel,
  itHasExactTimes,
  RUNS,
  type WindowParams,
  windowScenarioArb,
} from './harness.js';
import { SlidingLogModel } from './models.js';

const build = (p: WindowParams) => slidingLog({ limit: p.limit, window: p.windowMs });

describe('slidingLog: property tests', () => {
  it('never admits more than limit units in any window (t - windowMs, t]', async () => {
    await fc.assert(
      fc.asyncProperty(windowScenarioArb, async ({ p, steps }) => {
        const hits = admitted(await drive(build(p), steps));
        // Every window ending at an admitted time (the only places the count can peak).
        for (const end of hits) {
          let units = 0;
          for (const { t, cost } of hits) if (t > end.t - p.windowMs && t <= end.t) units += cost;
          if (units > p.limit) {
            throw new Error(
              `${units} units in (${end.t - p.windowMs}, ${end.t}], limit ${p.limit}`,
            );
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  itDecidesLikeWindowModel(
    'decides exactly like the timestamp-list model',
    build,
    (p) => new SlidingLogModel(p.limit, p.windowMs),
  );

  itHasExactTimes(
    windowScenarioArb,
    ({ p }) => build(p),
    ({ p }, observed) => {
      // The log holds one entry per admitted unit still inside the window, nothing else;
      // with no unit live, no live entry (none stored, or only entries out of the window).
      const last = observed[observed.length - 1]!;
      const state = last.after;
      const hits = admitted(observed).flatMap(({ t, cost }) => Array<number>(cost).fill(t));
      const live = hits.filter((t) => t > last.now - p.windowMs);
      if (state !== undefined && !Array.isArray(state)) {
        throw new Error(`a log stored as ${JSON.stringify(state)}`);
      }
      if (state === undefined && live.length > 0) {
        throw new Error(`no log stored for ${live.length} live units`);
      }
      const logged = (state ?? []).slice(1).filter((t) => t > last.now - p.windowMs);
      expect(logged).toEqual(live);
    },
  );
});
