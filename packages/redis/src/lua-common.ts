/**
 * Lua shared by every twin. `now` is ARGV[1] in ms since the Unix epoch when the store uses
 * the client's clock, or empty to take it from Redis `TIME` (whole ms, like `Date.now()`).
 * `SLACK_MS`: keys outlive their logical expiry by this much, so a client clock a little
 * behind Redis never loses live state; logical expiry is always decided from the stored
 * value, never from the key's TTL.
 */
export const LUA_PRELUDE = `
local now = tonumber(ARGV[1])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local cost = tonumber(ARGV[2])
local SLACK_MS = 1000
`;

/** Milliseconds a key outlives its logical expiry (see {@link LUA_PRELUDE}). */
export const SLACK_MS = 1000;
