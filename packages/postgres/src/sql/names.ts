/**
 * Where the store's objects live: the table and the prefix of its functions, each a quoted
 * SQL identifier (`"schema"."table"`, `"schema"."table_gcra_step"`...).
 */
export interface SqlNames {
  /** The table, schema-qualified and quoted. */
  readonly table: string;
  /** A function of the store: `fn('gcra_step')` is `"schema"."<table>_gcra_step"`. */
  fn(name: string): string;
}

/** An identifier as SQL takes it: checked by the caller (letters, digits, `_`), quoted. */
export function sqlNames(schema: string, table: string): SqlNames {
  return {
    table: `"${schema}"."${table}"`,
    fn: (name) => `"${schema}"."${table}_${name}"`,
  };
}

/**
 * The conventions every twin follows (see each `*.sql.ts`):
 *
 * - a state is a `float8[]` holding the TS {@link State} exactly: a number state (GCRA's
 *   TAT) as a one-element array, an array state as itself (its expiry at index 1); `NULL`
 *   for no state (the driver turns an expired one into `NULL`, as MemoryStore does);
 * - `<kind>_step(s, now, cost, p)` returns `[allowed, remaining, retryAfterMs,
 *   resetAfterMs]`, followed by the new state when one is to be written (the TS `step`);
 * - `<kind>_refund(s, now, cost, at, p)` returns `[mode, allowed, remaining, retryAfterMs,
 *   resetAfterMs]` (the peek after the give-back), then the new state when `mode` is 2
 *   (mode 0: leave the state, 1: delete it); the TS `refund`.
 *
 * Every number is a float8, so the arithmetic is the IEEE double arithmetic of the TS twin.
 */
export const TWIN_CONVENTIONS = 'float8[] states, [allowed, remaining, retry, reset, ...state]';
