import type { AdaptiveConcurrency } from './adaptive-concurrency.js';

/** The monitor's sampling period, ms: subtracted from what it reports. */
const RESOLUTION_MS = 10;

/**
 * Gives an adaptive limit the event-loop delay, the turn delay and the loop's idle time (see
 * `AdaptiveConcurrency.useTurnDelay`, `useLoopIdle`) of this Node process (when its `loopDelay`
 * option was not given and not `false`): a `perf_hooks.monitorEventLoopDelay` histogram,
 * read and reset once per sampling window, as its mean delay in ms beyond the monitor's
 * own period (a window with no sample keeps the last reading). `perf_hooks` comes from `process.getBuiltinModule` (Node, Bun, Deno), never a
 * static `node:` import, so the core still bundles for Workers; where the runtime has none,
 * the limit follows latency alone.
 */
export function useNodeLoopDelay(adaptive: { readonly controller: AdaptiveConcurrency }): void {
  const controller = adaptive.controller;
  if (!controller.wantsLoopDelay) return;
  const monitor = perfHooks()?.monitorEventLoopDelay;
  if (typeof monitor !== 'function') return;
  const histogram = monitor({ resolution: RESOLUTION_MS });
  histogram.enable();
  // A loop blocked longer than a window records no sample in it (the monitor's timer has not
  // fired yet): the last reading stands then, never "no delay".
  let last = 0;
  controller.useLoopDelay(() => {
    if (histogram.count === 0) return last;
    last = Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS);
    histogram.reset();
    return last;
  });
  if (typeof setImmediate === 'function') controller.useTurnDelay(turnDelay());
  const performance = perfHooks()?.performance;
  if (typeof performance?.eventLoopUtilization === 'function') {
    controller.useLoopIdle(() => performance.eventLoopUtilization!().idle);
  }
}

/**
 * The turn delay: the first request of a turn of the event loop marks its start and
 * schedules a `setImmediate` (`schedule`), which runs once the turn's I/O callbacks are done;
 * every later request of the turn has the time since that mark (ms, on `now`) of work ahead
 * of it: measured per request, not per window.
 */
export function turnDelay(
  now: () => number = () => performance.now(),
  schedule: (f: () => void) => unknown = setImmediate,
): () => number {
  let turnStart = 0;
  let inTurn = false;
  const endTurn = (): void => {
    inTurn = false;
  };
  return () => {
    const t = now();
    if (inTurn) return t - turnStart;
    inTurn = true;
    turnStart = t;
    schedule(endTurn);
    return 0;
  };
}

/** The part of `perf_hooks` used here. */
interface PerfHooks {
  performance?: { eventLoopUtilization?(): { idle: number } };
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
