import type { Algorithm } from '@sluice/core/store';
import { CALENDAR_WINDOW } from './calendar-window.lua.js';
import { FIXED_WINDOW } from './fixed-window.lua.js';
import { GCRA } from './gcra.lua.js';
import type { LuaTwin } from './lua-common.js';
import { penaltyTwin } from './penalty.lua.js';
import { SLIDING_LOG } from './sliding-log.lua.js';
import { SLIDING_WINDOW } from './sliding-window.lua.js';

/** Each algorithm's Lua twin, by `Algorithm.kind`. */
/** The algorithm families a store runs: all but `'adaptive'` (`Limit.adaptive`, decided in process). */
type StoredKind = Exclude<Algorithm['kind'], 'adaptive'>;

const TWINS: Readonly<Record<StoredKind, LuaTwin>> = {
  gcra: GCRA,
  'fixed-window': FIXED_WINDOW,
  'sliding-window': SLIDING_WINDOW,
  'sliding-log': SLIDING_LOG,
  'calendar-window': CALENDAR_WINDOW,
};

/**
 * {@link TWINS} as a Map: a custom Algorithm's `kind` can be any value, and one like
 * `'constructor'` must not find an Object property.
 */
const TWIN_OF_KIND: ReadonlyMap<unknown, LuaTwin> = new Map(Object.entries(TWINS));

/** The penalty twin (`Limit.blockFor`) of each twin, by the inner algorithm's kind. */
const PENALTY_OF_KIND: ReadonlyMap<unknown, LuaTwin> = new Map(
  Object.entries(TWINS).map(([kind, twin]) => [kind, penaltyTwin(twin)]),
);

/**
 * Every twin a store runs, in the order of the multi-key scripts' tables (the all-or-nothing
 * and prefetch scripts name a key's twin by its index here).
 */
export const STORE_TWINS: readonly LuaTwin[] = [
  ...Object.values(TWINS),
  ...PENALTY_OF_KIND.values(),
];

/** The twin that runs `algorithm`: its kind's, or for a penalty its inner kind's penalty twin. */
export function twinOf(algorithm: Algorithm): LuaTwin | undefined {
  const inner = algorithm.inner;
  if (inner !== undefined) {
    return inner.inner === undefined ? PENALTY_OF_KIND.get(inner.kind) : undefined;
  }
  return TWIN_OF_KIND.get(algorithm.kind);
}

/** The Lua source of each algorithm's twin, by `Algorithm.kind` (for tools and tests). */
export const LUA_SOURCES: Readonly<Record<StoredKind, string>> = Object.fromEntries(
  Object.entries(TWINS).map(([kind, twin]) => [kind, twin.single.source]),
) as Record<StoredKind, string>;

/** The rejection of a call whose algorithm has a kind with no Lua twin (a custom Algorithm). */
export function noTwin(kind: unknown): TypeError {
  const name = typeof kind === 'string' ? JSON.stringify(kind) : String(kind);
  return new TypeError(
    `sluice: RedisStore has no Lua twin for algorithm kind ${name} (it runs ${Object.keys(TWINS).join(', ')})`,
  );
}
