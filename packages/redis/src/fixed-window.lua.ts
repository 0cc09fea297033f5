import type { Decision, FixedWindowAlgorithm } from '@sluice/core';
import { LUA_PRELUDE } from './lua-common.js';

/**
 * Lua twin of `FixedWindowAlgorithm.step` (@sluice/core fixed-window.ts): the window starts
 * at the key's first admitted hit. One string key `"<windowEnd>,<count>"`.
 *
 * KEYS[1] = the key. ARGV = now ('' for Redis TIME), cost, limit, windowMs.
 * Reply: `{allowed (0|1), remaining, retryMs (-1 = never), resetMs}`.
 */
export const FIXED_WINDOW_LUA = `${LUA_PRELUDE}
local limit = tonumber(ARGV[3])
local windowMs = tonumber(ARGV[4])
local windowEnd = now
local count = 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local e, c = string.match(stored, '^([^,]+),(.+)$')
  e = tonumber(e)
  if e > now then
    windowEnd = e
    count = tonumber(c)
  end
end
if count + cost <= limit then
  if cost == 0 then return {1, limit - count, 0, windowEnd - now} end
  if count == 0 then windowEnd = now + windowMs end
  count = count + cost
  redis.call('SET', KEYS[1], string.format('%.17g', windowEnd) .. ',' .. count, 'PX', math.ceil(windowEnd - now) + SLACK_MS)
  return {1, limit - count, 0, windowEnd - now}
end
local retry = -1
if cost <= limit then retry = windowEnd - now end
return {0, limit - count, retry, windowEnd - now}
`;

/** Builds the {@link Decision} from a {@link FIXED_WINDOW_LUA} reply. */
export function decodeFixedWindow(
  reply: number[],
  algorithm: FixedWindowAlgorithm,
  cost: number,
): Decision {
  return {
    allowed: reply[0] === 1,
    limit: algorithm.limit,
    remaining: reply[1]!,
    retryAfterMs: reply[2]!,
    resetAfterMs: reply[3]!,
    cost,
  };
}
