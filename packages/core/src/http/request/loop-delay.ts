import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AdaptiveAlgorithm } from '../../adaptive/adaptive-gate.js';

/** The monitor's sampling period, ms: subtracted from what it reports. */
const RESOLUTION_MS = 10;

/**
 * Gives an adaptive limit the event-loop delay of this Node process (when its `loopDelay`
 * option was not given and not `false`): a `perf_hooks.monitorEventLoopDelay` histogram,
 * read and reset once per sampling window, as its mean delay in ms beyond the monitor's
 * own period. Lives on the HTTP path, which is Node's: the core's limits stay free of
 * `node:` modules.
 */
export function useNodeLoopDelay(adaptive: AdaptiveAlgorithm): void {
  const controller = adaptive.controller;
  if (!controller.wantsLoopDelay) return;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  controller.useLoopDelay(() => {
    const mean = histogram.count > 0 ? histogram.mean / 1e6 : RESOLUTION_MS;
    histogram.reset();
    return Math.max(0, mean - RESOLUTION_MS);
  });
}
