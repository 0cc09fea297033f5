import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { HttpVerdict } from '@sluice/core/http';
import type { NestResponse } from './types.js';

/**
 * Thrown by `SluiceGuard` for a denied request (as @nestjs/throttler's
 * `ThrottlerException`): an `HttpException` with the verdict's status (429) and body. The
 * rate-limit headers and `Retry-After` are already on the response. `SluiceModule`'s
 * filter answers it with the body every sluice adapter sends; a filter of your own for
 * this class (`@UseFilters` on a controller or handler) replaces that answer.
 */
export class ThrottleException extends HttpException {
  /** The denied verdict: `decision` (`retryAfterMs`…), `statusCode`, `body`, `contentType`. */
  readonly verdict: HttpVerdict;

  constructor(verdict: HttpVerdict) {
    super(verdict.body ?? 'Too Many Requests', verdict.statusCode);
    this.name = 'ThrottleException';
    this.verdict = verdict;
  }
}

/** Sends a denied verdict's status, content type and body, on Express or Fastify. */
function sendVerdict(res: NestResponse, v: HttpVerdict): void {
  const body = typeof v.body === 'string' ? v.body : JSON.stringify(v.body);
  if (typeof res.code === 'function' && 'raw' in res) {
    res.code(v.statusCode).header('content-type', v.contentType).send(body);
  } else if (typeof res.status === 'function' && typeof res.send === 'function') {
    res.setHeader('Content-Type', v.contentType);
    res.status(v.statusCode).send(body);
  } else {
    res.statusCode = v.statusCode;
    res.setHeader('Content-Type', v.contentType);
    res.end(body);
  }
}

/**
 * Answers a {@link ThrottleException} with the verdict's body exactly (the JSON body, or
 * `application/problem+json` with `body: 'problem'`), as every sluice adapter does. In a
 * GraphQL context the exception is handed back to GraphQL as an error.
 */
export class ThrottleExceptionFilter implements ExceptionFilter {
  catch(exception: ThrottleException, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'http') return exception;
    sendVerdict(host.switchToHttp().getResponse(), exception.verdict);
    return undefined;
  }
}
// Nest's decorators applied as calls: the package needs no decorator compiler setting.
Catch(ThrottleException)(ThrottleExceptionFilter);
