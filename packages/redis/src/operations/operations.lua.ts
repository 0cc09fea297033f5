import { LuaScript } from '../twins/lua-script.js';

/**
 * The write script of `RedisStore#operations` (`put` and `remove`), atomic per call; reads
 * are plain `HGET` / `HVALS` (see redis-operations.ts), so a process's start-up and its
 * version checks run no script.
 *
 * KEYS: [1] the entries hash (id → entry JSON), [2] the expiries sorted set (id → `until`,
 * ms since the epoch; entries without an end are not in it), [3] the version (field `v` of a hash).
 * ARGV: [1] mode `put` | `remove`, [2] the caller's now (ms since the epoch), [3] the
 * pub/sub channel, [4] the entry id, [5] its JSON, [6] its `until` (`''`: none).
 *
 * It first drops the entries whose `until` has passed (Redis 7.0 has no per-field expiry:
 * the sorted set stands in for it), then writes, sets the two keys' expiry to the last
 * entry's end (none while an entry has no end; the keys go with their last entry), `HINCRBY`s
 * the version and `PUBLISH`es it, all in one script, so a subscriber told a version reads
 * that version or a later one. The version key never expires: a counter that restarted at
 * 0 could repeat a version a process holds. Replies the new version.
 */
export const OPERATIONS_SCRIPT =
  new LuaScript(`local entries, expiries, version = KEYS[1], KEYS[2], KEYS[3]
local mode = ARGV[1]
local now = tonumber(ARGV[2])
local gone = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
if #gone > 0 then
  for i = 1, #gone do redis.call('HDEL', entries, gone[i]) end
  redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now)
end
local id = ARGV[4]
if mode == 'put' then
  redis.call('HSET', entries, id, ARGV[5])
  if ARGV[6] == '' then
    redis.call('ZREM', expiries, id)
  else
    redis.call('ZADD', expiries, ARGV[6], id)
  end
elseif mode == 'remove' then
  redis.call('HDEL', entries, id)
  redis.call('ZREM', expiries, id)
else
  return redis.error_reply('ERR sluice: unknown operations mode')
end
local n = redis.call('HLEN', entries)
if n == 0 then
  redis.call('DEL', entries, expiries)
elseif redis.call('ZCARD', expiries) < n then
  redis.call('PERSIST', entries)
  redis.call('PERSIST', expiries)
else
  local last = redis.call('ZRANGE', expiries, -1, -1, 'WITHSCORES')
  local at = math.floor(tonumber(last[2])) + 1000
  redis.call('PEXPIREAT', entries, at)
  redis.call('PEXPIREAT', expiries, at)
end
local v = redis.call('HINCRBY', version, 'v', 1)
redis.call('PUBLISH', ARGV[3], v)
return v
`);
