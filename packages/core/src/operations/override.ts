import { SluiceConfigError } from '../common/errors.js';
import type { Limit } from '../limits/limit.js';
import { parseThrottle } from '../limits/throttle-string.js';

const OVERRIDE_FORMS =
  "a limit as a route takes it: a throttle string such as '100/1m', '1000/hour' or " +
  "'throttle:60,1' (a named limiter 'throttle:<name>' is not a limit)";

/**
 * The limit of an override, parsed with the parser routes use (`parseThrottle`).
 *
 * @throws {@link SluiceConfigError} naming `limit` when `text` is not a limit.
 * @example parseOverrideLimit('100/1m').maxAttempts // 100
 */
export function parseOverrideLimit(text: unknown): Limit {
  if (typeof text !== 'string') throw new SluiceConfigError('limit', text, OVERRIDE_FORMS);
  let spec: ReturnType<typeof parseThrottle>;
  try {
    spec = parseThrottle(text);
  } catch {
    throw new SluiceConfigError('limit', text, OVERRIDE_FORMS);
  }
  if (spec.kind !== 'limits') throw new SluiceConfigError('limit', text, OVERRIDE_FORMS);
  return spec.limits[0]!;
}
