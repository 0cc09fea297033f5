import { SluiceConfigError } from '../../common/errors.js';

/**
 * The outcome options (express-rate-limit's names), parsed: which requests are
 * given back once their response is known.
 */
export interface OutcomeRule<Req, Res> {
  /** Give back the charge of a successful request. */
  skipSuccessful: boolean;
  /** Give back the charge of a failed request (closed early included). */
  skipFailed: boolean;
  /** Whether a finished request succeeded; default status < 400. */
  wasSuccessful: ((req: Req, res: Res) => boolean | Promise<boolean>) | undefined;
}

/** Parses the outcome options; `undefined` when neither skip option is on. */
export function parseOutcome<Req, Res>(options: {
  skipSuccessfulRequests?: unknown;
  skipFailedRequests?: unknown;
  requestWasSuccessful?: unknown;
}): OutcomeRule<Req, Res> | undefined {
  const flag = (name: string, value: unknown): boolean => {
    if (value === undefined) return false;
    if (typeof value !== 'boolean') throw new SluiceConfigError(name, value, 'a boolean');
    return value;
  };
  const skipSuccessful = flag('skipSuccessfulRequests', options.skipSuccessfulRequests);
  const skipFailed = flag('skipFailedRequests', options.skipFailedRequests);
  const wasSuccessful = options.requestWasSuccessful;
  if (wasSuccessful !== undefined && typeof wasSuccessful !== 'function') {
    throw new SluiceConfigError(
      'requestWasSuccessful',
      wasSuccessful,
      'a function (req, res) => boolean | Promise<boolean>',
    );
  }
  if (!skipSuccessful && !skipFailed) return undefined;
  return {
    skipSuccessful,
    skipFailed,
    wasSuccessful: wasSuccessful as OutcomeRule<Req, Res>['wasSuccessful'],
  };
}
