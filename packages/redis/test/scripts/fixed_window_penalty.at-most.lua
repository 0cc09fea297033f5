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
local function fixed_window(key, now, cost, limit, windowMs)
  local windowEnd = now
  local count = 0
  local stored = redis.call('GET', key)
  if stored then
    local e, c = state_numbers(stored, 2)
    if e > now then
      windowEnd = e
      count = c
    end
  end
  if count + cost <= limit then
    if cost == 0 then return 1, limit - count, 0, windowEnd - now end
    if count == 0 then windowEnd = now + windowMs end
    count = count + cost
    redis.call('SET', key, exact(windowEnd) .. ',' .. count, 'PX', px(windowEnd - now))
    return 1, limit - count, 0, windowEnd - now
  end
  local retry = -1
  if cost <= limit then retry = windowEnd - now end
  return 0, math.max(0, limit - count), retry, windowEnd - now
end
local function fixed_window_refund(key, now, cost, at, reset, limit, windowMs)
  local stored = redis.call('GET', key)
  if cost < 0 then
    local e, c = now + windowMs, 0
    if stored then
      local se, sc = state_numbers(stored, 2)
      if se > now then e, c = se, sc end
    end
    redis.call('SET', key, exact(e) .. ',' .. (c - cost), 'PX', px(e - now))
  elseif stored then
    local e, c = state_numbers(stored, 2)
    if e > now and e - windowMs <= at and at < e then
      c = c - cost
      if c <= 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, exact(e) .. ',' .. c, 'KEEPTTL')
      end
    end
  end
  return fixed_window(key, now, 0, limit, windowMs)
end
local function fixed_window_penalty(key, now, cost, blockMs, backoff, maxBlock, p1, p2)
  local bkey = key .. '!block'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {fixed_window(key, now, 0, p1, p2)}
    r[1] = 0
    r[2] = 0
    r[5] = 1
    r[6] = blockedUntil - now
    return unpack(r, 1, 6)
  end
  local r = {fixed_window(key, now, cost, p1, p2)}
  if r[1] == 1 or r[3] == -1 then
    r[5] = 0
    r[6] = 0
    return unpack(r, 1, 6)
  end
  local block = blockMs
  if watchUntil > now and last > 0 then block = math.min(maxBlock, math.ceil(last * backoff)) end
  local untilMs = now + block
  redis.call('SET', bkey, exact(untilMs) .. ',' .. exact(untilMs + block) .. ',' .. exact(block), 'PX', px(2 * block))
  r[1] = 0
  r[2] = 0
  r[5] = 1
  r[6] = block
  return unpack(r, 1, 6)
end

local function at_most(key, now, max, p1, p2, p3, p4, p5)
  local r = {fixed_window_penalty(key, now, 0, p1, p2, p3, p4, p5)}
  local n = math.min(max, r[2])
  if n > 0 then return n, fixed_window_penalty(key, now, n, p1, p2, p3, p4, p5) end
  if r[5] == 1 then return 0, unpack(r, 1, 6) end
  local q = {fixed_window(key, now, 1, p4, p5)}
  q[5] = 0
  q[6] = 0
  return 0, unpack(q, 1, 6)
end
local clock = server_now()
local deadline = tonumber(ARGV[8])
if deadline ~= nil and clock >= deadline then return {-2, clock} end
local now = use_now(ARGV[1], clock)
local ok, n, r1, r2, r3, r4, r5, r6 = pcall(at_most, KEYS[1], now, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]))
if not ok then
  if type(n) == 'table' then n = n.err end
  return {tostring(n), 0, 0, 0, 0, 0, 0, clock}
end
return {n, r1, r2, r3, r4, r5, r6, clock}
