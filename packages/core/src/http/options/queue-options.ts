import { type Duration, durationMs } from '../../common/duration.js';
import { describe, SluiceConfigError } from '../../common/errors.js';
import { integerAtLeast } from '../../common/validate.js';

/** `mode: 'queue'`, parsed: how long a request may wait for its slot and how many may. */
export interface QueueConfig {
  /** The longest wait booked, ms (option `maxWait`). */
  maxWaitMs: number;
  /** The most requests waiting at once in this process for this limiter (option `maxQueued`). */
  maxQueued: number;
}

/** The options {@link parseQueue} reads. */
export interface QueueOptionsInput {
  mode?: unknown;
  maxWait?: Duration;
  maxQueued?: number;
  algorithm?: unknown;
}

/** Default `maxWait`: 5 s. */
export const DEFAULT_MAX_WAIT_MS = 5000;
/** Default `maxQueued`: 1000 requests per process. */
export const DEFAULT_MAX_QUEUED = 1000;

/**
 * Parses `mode: 'queue'` with `maxWait` and `maxQueued`; `undefined` for another mode.
 * @throws {@link SluiceConfigError} naming `maxWait` (unparsable or negative) or `maxQueued`
 *   (not an integer >= 0), or naming `mode` when the
 *   `algorithm` option is a window (a window has no future slot to queue for).
 */
export function parseQueue(options: QueueOptionsInput): QueueConfig | undefined {
  // `maxWait` and `maxQueued` apply to `mode: 'queue'` only; another mode leaves them unused
  // (a documented default passed explicitly changes nothing).
  if (options.mode !== 'queue') return undefined;
  const algorithm = options.algorithm;
  if (typeof algorithm === 'string' && algorithm !== 'gcra') {
    throw new SluiceConfigError(
      'mode',
      'queue',
      `algorithm 'gcra' (the default): a window (${describe(algorithm)}) has no future slot to queue for`,
    );
  }
  const wait = options.maxWait ?? DEFAULT_MAX_WAIT_MS;
  const maxWaitMs = wait === 0 ? 0 : durationMs(wait);
  if (maxWaitMs === undefined) {
    throw new SluiceConfigError(
      'maxWait',
      wait,
      "a duration >= 0: milliseconds or a string like '500ms', '5s'",
    );
  }
  const maxQueued = integerAtLeast('maxQueued', options.maxQueued ?? DEFAULT_MAX_QUEUED, 0);
  return { maxWaitMs, maxQueued };
}
