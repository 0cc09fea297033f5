import type { Decision, GcraAlgorithm } from '@sluice/core';
import { LUA_PRELUDE } from './lua-common.js';

/**
 * Lua twin of `GcraAlgorithm.step` (@sluice/core gcra.ts): GCRA with redis-cell's
 * arithmetic on the same tick grid, one key holding the TAT in ms (`%.17g`, so it reads
 * back as the same double).
 *
 * KEYS[1] = the key. ARGV = now ('' for Redis TIME), cost, intervalTicks, ticksPerMs, burst.
 * Reply: `{allowed (0|1), remaining, retryTicks (-1 = never), resetTicks}`.
 */
export const GCRA_LUA = `${LUA_PRELUDE}
local interval = tonumber(ARGV[3])
local perMs = tonumber(ARGV[4])
local tolerance = tonumber(ARGV[5]) * interval
local ahead = 0
local tat = tonumber(redis.call('GET', KEYS[1]))
if tat ~= nil and tat > now then
  ahead = math.floor((tat - now) * perMs + 0.5)
end
local increment = cost * interval
local nxt = ahead + increment
if nxt <= tolerance then
  if cost > 0 then
    local ttl = nxt / perMs
    redis.call('SET', KEYS[1], string.format('%.17g', now + ttl), 'PX', math.ceil(ttl) + SLACK_MS)
  end
  return {1, math.floor((tolerance - nxt) / interval), 0, nxt}
end
local retry = -1
if increment <= tolerance then retry = nxt - tolerance end
local remaining = 0
if ahead < tolerance then remaining = math.floor((tolerance - ahead) / interval) end
return {0, remaining, retry, ahead}
`;

/** Builds the {@link Decision} from a {@link GCRA_LUA} reply (same divisions as the TS engine). */
export function decodeGcra(reply: number[], algorithm: GcraAlgorithm, cost: number): Decision {
  const perMs = algorithm.ticksPerMs;
  const retry = reply[2]!;
  return {
    allowed: reply[0] === 1,
    limit: algorithm.limit,
    remaining: reply[1]!,
    retryAfterMs: retry < 0 ? -1 : retry / perMs,
    resetAfterMs: reply[3]! / perMs,
    cost,
  };
}
