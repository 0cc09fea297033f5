/**
 * The timers the store uses, on any runtime: Node's `setImmediate` where there is one (Node,
 * Bun, Deno), else a 0 ms `setTimeout` (Workers, Vercel's edge runtime); `unref` where
 * timers have it, so a Node process is never held open by the store.
 */

/** Runs `fn` in a later turn of the event loop, after pending I/O (Node's check phase). */
export const nextTurn: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function'
    ? (fn) => void globalThis.setImmediate(fn)
    : (fn) => void setTimeout(fn, 0);

/** A timer's handle, a number or an object by runtime. */
export type Timer = ReturnType<typeof setTimeout>;

/** `setTimeout(fn, ms)`, not holding a Node process open. */
export function unrefTimeout(fn: () => void, ms: number): Timer {
  const timer = setTimeout(fn, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
