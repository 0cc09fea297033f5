import type { FetchRequestState } from './binding.js';

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
