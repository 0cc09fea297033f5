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
local function sliding_window(key, now, cost, limit, w)
  local start = math.floor(now / w) * w
  local elapsed = now - start
  local prev = 0
  local curr = 0
  local stored = redis.call('GET', key)
  if stored then
    local s, p, c = state_numbers(stored, 3)
    if s == start then
      prev = p
      curr = c
    elseif s == start - w then
      prev = c
    end
  end
  local function reset_after()
    if curr > 0 then return start + 2 * w - now end
    if prev > 0 then return start + w - now end
    return 0
  end
  local weight = w - elapsed
  local used = prev * weight + curr * w
  if used + cost * w <= limit * w then
    local remaining = math.floor((limit * w - used - cost * w) / w)
    if cost == 0 then return 1, remaining, 0, 0, 1, reset_after() end
    curr = curr + cost
    redis.call('SET', key, exact(start) .. ',' .. prev .. ',' .. curr, 'PX', px(start + 2 * w - now))
    return 1, remaining, 0, 0, 1, start + 2 * w - now
  end
  local remaining = math.floor((limit * w - used) / w)
  if remaining < 0 then remaining = 0 end
  if cost > limit then return 0, remaining, -1, 0, 1, reset_after() end
  if prev > 0 and curr + cost <= limit then
    return 0, remaining, 0, prev * weight - (limit - curr - cost) * w, prev, reset_after()
  end
  local toNext = start + w - now
  if curr + cost <= limit then return 0, remaining, toNext, 0, 1, reset_after() end
  return 0, remaining, toNext, curr * w - (limit - cost) * w, curr, reset_after()
end

local function at_most(key, now, max, p1, p2)
  local r = {sliding_window(key, now, 0, p1, p2)}
  local n = math.min(max, r[2])
  if n > 0 then return n, sliding_window(key, now, n, p1, p2) end
  return 0, sliding_window(key, now, 1, p1, p2)
end
local clock = server_now()
local deadline = tonumber(ARGV[5])
if deadline ~= nil and clock >= deadline then return {-2, clock} end
local now = use_now(ARGV[1], clock)
local ok, n, r1, r2, r3, r4, r5, r6 = pcall(at_most, KEYS[1], now, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
if not ok then
  if type(n) == 'table' then n = n.err end
  return {tostring(n), 0, 0, 0, 0, 0, 0, clock}
end
return {n, r1, r2, r3, r4, r5, r6, clock}
