local SLACK_MS = 1000
local function server_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function exact(x)
  if x % 1 == 0 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
local function px(ms)
  return string.format('%d', math.ceil(ms) + SLACK_MS)
end
local on_server_time = false
local function use_now(arg, clock)
  on_server_time = arg == ''
  return tonumber(arg) or clock
end
local function state_numbers(stored, n)
  local fields = {string.match(stored, '^' .. string.rep('([^,]+),', n - 1) .. '(.+)$')}
  for i = 1, n do fields[i] = tonumber(fields[i]) end
  return unpack(fields, 1, n)
end
local function sliding_log(key, now, cost, limit, w)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - w))
  local count = redis.call('ZCARD', key)
  local function last_score()
    local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    return tonumber(last[2])
  end
  if count + cost <= limit then
    if cost == 0 then
      if count == 0 then return 1, limit, 0, 0 end
      local t = last_score()
      return 1, limit - count, 0, t + w - now
    end
    local score = exact(now)
    -- Entries at this exact time are "<score>:1" .. "<score>:n": they arrive and leave together.
    local seq = redis.call('ZCOUNT', key, score, score)
    -- ZADD in chunks: unpack() of more than ~8000 values overflows the Lua C stack.
    local i = 1
    while i <= cost do
      local last = math.min(cost, i + 999)
      local args = {}
      for j = i, last do
        args[#args + 1] = score
        args[#args + 1] = score .. ':' .. (seq + j)
      end
      redis.call('ZADD', key, unpack(args))
      i = last + 1
    end
    redis.call('PEXPIRE', key, px(w))
    return 1, limit - count - cost, 0, w
  end
  local reset = 0
  if count > 0 then reset = last_score() + w - now end
  if cost > limit then return 0, limit - count, -1, reset end
  local oldest = redis.call('ZRANGE', key, count + cost - limit - 1, count + cost - limit - 1, 'WITHSCORES')
  return 0, limit - count, tonumber(oldest[2]) + w - now, reset
end

local function at_most(key, now, max, p1, p2)
  local r = {sliding_log(key, now, 0, p1, p2)}
  local n = math.min(max, r[2])
  if n > 0 then return n, sliding_log(key, now, n, p1, p2) end
  return 0, sliding_log(key, now, 1, p1, p2)
end
local clock = server_now()
local deadline = tonumber(ARGV[5])
if deadline ~= nil and clock >= deadline then return {-2, clock} end
local now = use_now(ARGV[1], clock)
local ok, n, r1, r2, r3, r4 = pcall(at_most, KEYS[1], now, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
if not ok then
  if type(n) == 'table' then n = n.err end
  return {tostring(n), 0, 0, 0, 0, clock}
end
return {n, r1, r2, r3, r4, clock}
