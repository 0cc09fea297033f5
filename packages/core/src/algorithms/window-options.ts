import { type Duration, parseWholeMs } from '../common/duration.js';
import { SluiceConfigError } from '../common/errors.js';
import { checkOptionNames } from '../common/known-options.js';
import { integerAtLeast } from '../common/validate.js';

/** Options shared by {@link fixedWindow}, {@link slidingWindow} and {@link slidingLog}. */
export interface WindowOptions {
  /** Units admitted per window: an integer >= 1. Reported as `limit`. */
  limit: number;
  /** The window: ms (number) or a duration string (`'1s'`, `'1 minute'`, `'15m'`). */
  window: Duration;
}

/** Validated {@link WindowOptions}: `limit` and `windowMs` (whole ms >= 1). */
export interface WindowConfig {
  limit: number;
  windowMs: number;
}

/**
 * Parses {@link WindowOptions} once.
 * @throws {@link SluiceConfigError} naming an unknown option, `limit` or `window`.
 */
export function parseWindowOptions(factory: string, options: WindowOptions): WindowConfig {
  if (options === null || typeof options !== 'object') {
    throw new SluiceConfigError('options', options, `an object { limit, window } for ${factory}`);
  }
  checkOptionNames(options, ['limit', 'window'], `${factory}()`);
  const limit = integerAtLeast('limit', options.limit, 1);
  const windowMs = parseWholeMs('window', options.window);
  return { limit, windowMs };
}
