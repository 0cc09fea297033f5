import type { Decision, GcraAlgorithm } from '@sluice/core';
import { luaTwin } from './lua-common.js';

/**
 * Lua twin of `GcraAlgorithm.step` (@sluice/core gcra.ts): GCRA with redis-cell's
 * arithmetic on the same tick grid, one key holding the TAT in ms (`%.17g`, so it reads
 * back as the same double; a whole ms is stored as an integer).
 *
 * Params: intervalTicks, ticksPerMs, burst.
 * Returns `allowed (0|1), remaining, retryTicks (-1 = never), resetTicks`.
 */
const GCRA_FN = `local function gcra(key, now, cost, interval, perMs, burst)
  local tolerance = burst * interval
  local ahead = 0
  local tat = tonumber(redis.call('GET', key))
  if tat ~= nil and tat > now then
    ahead = math.floor((tat - now) * perMs + 0.5)
  end
  local increment = cost * interval
  local nxt = ahead + increment
  if nxt <= tolerance then
    if cost > 0 then
      local ttl = nxt / perMs
      redis.call('SET', key, string.format('%.17g', now + ttl), 'PX', math.ceil(ttl) + SLACK_MS)
    end
    return 1, math.floor((tolerance - nxt) / interval), 0, nxt
  end
  local retry = -1
  if increment <= tolerance then retry = nxt - tolerance end
  local remaining = 0
  if ahead < tolerance then remaining = math.floor((tolerance - ahead) / interval) end
  return 0, remaining, retry, ahead
end
`;

const GCRA = luaTwin('gcra', 3, 4, GCRA_FN);
/** GCRA on one key (see `LuaTwin.single`). */
export const GCRA_LUA = GCRA.single;
/** GCRA on many keys in one call (see `LuaTwin.batch`). */
export const GCRA_BATCH_LUA = GCRA.batch;

/**
 * Builds the {@link Decision} from the 4 numbers at `at` in a {@link GCRA_LUA} or
 * {@link GCRA_BATCH_LUA} reply (same divisions as the TS engine).
 */
export function decodeGcra(
  reply: number[],
  at: number,
  algorithm: GcraAlgorithm,
  cost: number,
): Decision {
  const perMs = algorithm.ticksPerMs;
  const retry = reply[at + 2]!;
  return {
    allowed: reply[at] === 1,
    limit: algorithm.limit,
    remaining: reply[at + 1]!,
    retryAfterMs: retry < 0 ? -1 : retry / perMs,
    resetAfterMs: reply[at + 3]! / perMs,
    cost,
  };
}
