local entries, expiries, version = KEYS[1], KEYS[2], KEYS[3]
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
