import type { AdaptiveAlgorithm } from '../../adaptive/adaptive-gate.js';

/** The monitor's sampling period, ms: subtracted from what it reports. */
const RESOLUTION_MS = 10;

/**
 * Gives an adaptive limit the event-loop delay of this Node process (when its `loopDelay`
 * option was not given and not `false`): a `perf_hooks.monitorEventLoopDelay` histogram,
 * read and reset once per sampling window, as its mean delay in ms beyond the monitor's
 * own period. `perf_hooks` comes from `process.getBuiltinModule` (Node, Bun, Deno), never a
 * static `node:` import, so the core still bundles for Workers; where the runtime has none,
 * the limit follows latency alone.
 */
export function useNodeLoopDelay(adaptive: AdaptiveAlgorithm): void {
  const controller = adaptive.controller;
  if (!controller.wantsLoopDelay) return;
  const monitor = perfHooks()?.monitorEventLoopDelay;
  if (typeof monitor !== 'function') return;
  const histogram = monitor({ resolution: RESOLUTION_MS });
  histogram.enable();
  controller.useLoopDelay(() => {
    const mean = histogram.count > 0 ? histogram.mean / 1e6 : RESOLUTION_MS;
    histogram.reset();
    return Math.max(0, mean - RESOLUTION_MS);
  });
}

/** The part of `perf_hooks` used here. */
interface PerfHooks {
  monitorEventLoopDelay?(options: { resolution: number }): {
    enable(): void;
    reset(): void;
    readonly count: number;
    readonly mean: number;
  };
}

/** Node's `perf_hooks` through `process.getBuiltinModule` (the bare name), if the runtime has it. */
function perfHooks(): PerfHooks | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  return proc?.getBuiltinModule?.('perf_hooks') as PerfHooks | undefined;
}
