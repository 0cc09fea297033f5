import type { State } from '@sluice/core/store';

/**
 * A {@link State} as the table stores it: its numbers as text, comma-separated, the expiry
 * first (so SQL reads it with `substr`): a number state as `"x"`, an array state as
 * `"x,y,..."` (a one-element array as `"x,"`). `String(n)` of a double reads back as the
 * same double.
 */
export function encodeState(state: State): string {
  if (typeof state === 'number') return String(state);
  return state.length === 1 ? `${state[0]},` : state.join(',');
}

/** The {@link State} of {@link encodeState}'s text. */
export function decodeState(text: string): State {
  const comma = text.indexOf(',');
  if (comma < 0) return Number(text);
  const parts = text.split(',');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map(Number);
}

/** The SQL expression of a row's expiry (ms) from its `state` column; 0 for no state. */
export const EXPIRY_SQL = `coalesce(CAST(substr(state, 1, instr(state || ',', ',') - 1) AS REAL), 0)`;
