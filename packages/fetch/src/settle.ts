import type { FetchRequestState } from './request-state.js';

/**
 * The function that settles what a request holds (leases, outcome-aware counting,
 * `Limit.costAfter`) once its response is done: with the status sent, or `undefined` when
 * the client went away first. Only the first call settles (the body's end, its cancellation
 * and the request's abort signal may all report); the settling's promise goes to
 * `waitUntil`, so a runtime that stops work after the response (Workers, Next.js) lets it
 * finish.
 */
export function settleWhenDone(
  state: FetchRequestState,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): (status: number | undefined) => void {
  return (status) => {
    const finish = state.finish;
    if (finish === undefined) return;
    state.finish = undefined;
    const settled = finish(status);
    waitUntil?.(settled);
  };
}

/**
 * Settles what `request` holds as a request whose client went away (`undefined`) when its
 * abort signal fires before a response exists: Bun, Deno and @hono/node-server abort it on
 * a disconnect, while the request waits in a queue or in its handler. Once there is a
 * response, its body's end or cancellation decides (Deno also aborts the signal after a
 * response was sent). A signal aborted already settles on the next microtask (not inside
 * the pipeline's own call).
 */
export function watchAbort(
  request: Request,
  state: FetchRequestState,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): void {
  const signal = request.signal as AbortSignal | null | undefined;
  if (signal === undefined || signal === null) return;
  const gone = (): void => {
    if (state.response === undefined) settleWhenDone(state, waitUntil)(undefined);
  };
  if (signal.aborted) queueMicrotask(gone);
  else signal.addEventListener('abort', gone, { once: true });
}
