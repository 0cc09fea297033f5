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

local function at_most(key, now, max, p1, p2)
  local r = {fixed_window(key, now, 0, p1, p2)}
  local n = math.min(max, r[2])
  if n > 0 then return n, fixed_window(key, now, n, p1, p2) end
  return 0, fixed_window(key, now, 1, p1, p2)
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
