/**
 * The Node-level part of an adapter's `HttpBinding.onFinished`: calls `done` once, with the
 * response's status when it finished, or `undefined` when its connection closed before it
 * finished (a client that went away). `res` is a Node `ServerResponse` (Express `res`, Koa
 * `ctx.res`, Fastify `reply.raw`) or anything with its `writableFinished`, `statusCode` and
 * `'finish'` / `'close'` events.
 *
 * @example
 * onFinished: (req, res, done) => whenFinished(res, done)
 */
export function whenFinished(res: FinishingResponse, done: (status: number | undefined) => void) {
  if (res.writableFinished === true) {
    done(res.statusCode);
    return;
  }
  let called = false;
  const end = (finished: boolean) => {
    if (called) return;
    called = true;
    res.removeListener('finish', onFinish);
    res.removeListener('close', onClose);
    done(finished || res.writableFinished === true ? res.statusCode : undefined);
  };
  // 'finish': the whole response was handed to the connection (some responses, e.g.
  // light-my-request's, emit it without setting `writableFinished`); 'close' first: the
  // connection went away before that.
  const onFinish = () => end(true);
  const onClose = () => end(false);
  res.once('finish', onFinish);
  res.once('close', onClose);
}

/** What {@link whenFinished} needs of a response (a Node `ServerResponse` has it all). */
export interface FinishingResponse {
  /** `true` once the whole response was handed to the OS (Node's `ServerResponse`). */
  readonly writableFinished?: boolean;
  /** The status sent (or to be sent). */
  readonly statusCode: number;
  /** Listens once for `'finish'` (response sent) or `'close'` (connection closed). */
  once(event: 'finish' | 'close', listener: () => void): unknown;
  /** Stops listening (the other event's listener, once one of them fired). */
  removeListener(event: 'finish' | 'close', listener: () => void): unknown;
}
