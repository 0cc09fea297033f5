import { type Duration, parseWholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames, optionNames } from '../common/known-options.js';
import { integerAtLeast, positiveNumber } from '../common/validate.js';

/** A request's class for {@link AdaptiveOptions.priority}: `'sheddable'` requests are shed first. */
export type AdaptivePriority = 'critical' | 'default' | 'sheddable';

/** Options of `Limit.adaptive`. Every one is optional. */
export interface AdaptiveOptions<Req = unknown> {
  /**
   * How the limit follows latency: `'gradient2'` (Netflix concurrency-limits' Gradient2:
   * the ratio of baseline to current latency) or `'aimd'` (additive increase, multiplicative
   * decrease on a drop or a window slower than `timeout`).
   * @default 'gradient2'
   */
  algorithm?: 'gradient2' | 'aimd';
  /** The lowest limit, requests in flight: an integer >= 1. @default 1 */
  min?: number;
  /** The highest limit: an integer >= `min`. @default 1000 */
  max?: number;
  /** The limit to start at: an integer in `[min, max]`. @default 20, clamped to `[min, max]` */
  initial?: number;
  /**
   * How long a sampling window lasts: **ms** or a duration string. A window closes after
   * this long once it has `minSamples` requests (or after 10× this long with what it has).
   * @default 100
   */
  window?: Duration;
  /** Finished requests a window needs before it updates the limit: an integer >= 1. @default 10 */
  minSamples?: number;
  /** Gradient2: latency ratio the limit tolerates before it shrinks, a number >= 1 (Netflix: 1.5; raise it on a service whose latency is noisy). @default 1.1 */
  tolerance?: number;
  /** Gradient2: requests added above the gradient each window, a number >= 0 (Netflix: 4). @default 0.5 */
  queueSize?: number;
  /** Gradient2: weight of each window's new limit, in (0, 1]. @default 0.2 */
  smoothing?: number;
  /**
   * Gradient2: how far the baseline latency rises toward a higher window minimum per
   * window the limit did not saturate, in [0, 1] (0: it never rises). @default 0.05
   */
  drift?: number;
  /** AIMD: multiplier on a slow window, in (0, 1). @default 0.9 */
  backoffRatio?: number;
  /** AIMD: a window whose mean latency passes this backs off: **ms** or a duration string. @default '5s' */
  timeout?: Duration;
  /**
   * A request's class, given the **framework's** request (Express `req`; Fastify `request`;
   * Koa `ctx`): `'sheddable'` requests are admitted only while fewer than 75% of the limit
   * are in flight, `'default'` ones below 90%, `'critical'` ones up to the limit.
   * @default none: every request may use the whole limit
   */
  priority?: (req: Req) => AdaptivePriority;
  /**
   * The event-loop delay in **ms** now (e.g. a `perf_hooks.monitorEventLoopDelay` mean),
   * read once per window: added to the window's latency (time a request waits before the
   * middleware sees it) and, over a request's time, counted as requests queued in front of
   * the loop (so a CPU-bound server, one request in flight at a time, still sheds). Where
   * sluice supplies it, it also measures the turn delay per request (the time the loop's
   * current turn has run, marked by `setImmediate`), which then counts the queue instead and
   * bounds it CoDel's way (a request with more than one service time of the turn ahead of it
   * is shed while that queue stands), and the loop's delay is no longer added to the
   * latency. Injected: the core imports no `node:` module. `false`: neither.
   * @default where `perf_hooks` is there to load (Node, Bun, Deno; every adapter), `monitorEventLoopDelay`'s mean and the turn delay; elsewhere (Workers) none
   */
  loopDelay?: (() => number) | false;
}

const ADAPTIVE_OPTIONS = optionNames<AdaptiveOptions>({
  algorithm: true,
  min: true,
  max: true,
  initial: true,
  window: true,
  minSamples: true,
  tolerance: true,
  queueSize: true,
  smoothing: true,
  drift: true,
  backoffRatio: true,
  timeout: true,
  priority: true,
  loopDelay: true,
});

/** {@link AdaptiveOptions} parsed: every value present and checked. */
export interface AdaptiveConfig {
  algorithm: 'gradient2' | 'aimd';
  min: number;
  max: number;
  initial: number;
  windowMs: number;
  minSamples: number;
  tolerance: number;
  queueSize: number;
  smoothing: number;
  drift: number;
  backoffRatio: number;
  timeoutMs: number;
  // biome-ignore lint/suspicious/noExplicitAny: called with each framework's own request
  priority: ((req: any) => AdaptivePriority) | undefined;
  loopDelay: (() => number) | false | undefined;
}

function numberIn(
  option: string,
  value: unknown,
  lo: number,
  hi: number,
  expected: string,
): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < lo || value > hi) {
    throw new SluiceConfigError(option, value, expected);
  }
  return value;
}

function optionalFunction<F>(option: string, value: unknown, expected: string): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new SluiceConfigError(option, value, expected);
  }
  return value as F | undefined;
}

/**
 * Checks `Limit.adaptive`'s options once, at construction.
 *
 * @throws {@link SluiceConfigError} naming the option: unknown names (all in one message), an
 *   unknown `algorithm`, `min` > `max`, `initial` outside `[min, max]`, a value of the wrong kind.
 */
export function parseAdaptiveOptions(options: unknown): AdaptiveConfig {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new SluiceConfigError(
      'options',
      options,
      'an object { algorithm?, min?, max?, initial?, … }',
    );
  }
  checkOptionNames(options, ADAPTIVE_OPTIONS, 'Limit.adaptive()');
  const o = options as AdaptiveOptions;
  const algorithm = o.algorithm ?? 'gradient2';
  if (algorithm !== 'gradient2' && algorithm !== 'aimd') {
    throw new SluiceConfigError('algorithm', algorithm, "'gradient2' or 'aimd'");
  }
  const min = integerAtLeast('min', o.min ?? 1, 1);
  const max = integerAtLeast('max', o.max ?? Math.max(1000, min), 1);
  if (min > max) {
    throw new SluiceConfigError('min', o.min, `an integer <= max (${max})`);
  }
  const initial =
    o.initial === undefined
      ? Math.min(max, Math.max(min, 20))
      : integerAtLeast('initial', o.initial, 1);
  if (initial < min || initial > max) {
    throw new SluiceConfigError(
      'initial',
      o.initial,
      `an integer in [min, max] = [${min}, ${max}]`,
    );
  }
  const windowMs = parseWholeMs('window', o.window ?? 100);
  if (windowMs < 1) throw new SluiceConfigError('window', o.window, 'at least 1 ms');
  const timeoutMs = parseWholeMs('timeout', o.timeout ?? '5s');
  if (timeoutMs < 1) throw new SluiceConfigError('timeout', o.timeout, 'at least 1 ms');
  return {
    algorithm,
    min,
    max,
    initial,
    windowMs,
    minSamples: integerAtLeast('minSamples', o.minSamples ?? 10, 1),
    tolerance: numberIn('tolerance', o.tolerance ?? 1.1, 1, 100, 'a number in [1, 100]'),
    queueSize: numberIn('queueSize', o.queueSize ?? 0.5, 0, 1e6, 'a number >= 0'),
    smoothing: positiveAtMostOne('smoothing', o.smoothing ?? 0.2),
    drift: numberIn('drift', o.drift ?? 0.05, 0, 1, 'a number in [0, 1]'),
    backoffRatio: numberIn(
      'backoffRatio',
      o.backoffRatio ?? 0.9,
      0.01,
      0.99,
      'a number in [0.01, 0.99]',
    ),
    timeoutMs,
    priority: optionalFunction(
      'priority',
      o.priority,
      "a function (req) => 'critical' | 'default' | 'sheddable'",
    ),
    loopDelay:
      o.loopDelay === false
        ? false
        : optionalFunction('loopDelay', o.loopDelay, 'a function () => ms, or false'),
  };
}

function positiveAtMostOne(option: string, value: unknown): number {
  const v = positiveNumber(option, value);
  if (v > 1) throw new SluiceConfigError(option, value, 'a number in (0, 1]');
  return v;
}
