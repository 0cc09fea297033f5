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
local EXPIRY_TAT = (redis.REDIS_VERSION_NUM or 0) >= 0x070000
local MAX_EXPIRY_AHEAD = 1099511627776
local function gcra_expiry_form(stored, perMs)
  return on_server_time and EXPIRY_TAT and perMs <= 10000 and stored < perMs
end
local function gcra_expiry_ahead(key, stored, now, perMs)
  return (redis.call('PEXPIRETIME', key) - SLACK_MS - now) * perMs - stored
end
local function gcra_whole_ms(perMs)
  return perMs == 1 and on_server_time and EXPIRY_TAT
end
local function gcra_ahead(key, now, perMs)
  if gcra_whole_ms(perMs) then
    local at = redis.call('PEXPIRETIME', key)
    if at >= 0 then return math.max(0, at - SLACK_MS - now), true end
    if at == -2 then return 0, false end
    -- -1, no expiry: none of ours; read as before (GET raises WRONGTYPE on a non-string)
  end
  local tat = tonumber(redis.call('GET', key))
  if tat == nil then return 0, false end
  if gcra_expiry_form(tat, perMs) then
    return math.max(0, gcra_expiry_ahead(key, tat, now, perMs)), false
  end
  if tat >= 1e14 then tat = tat / 1000 end
  if tat > now then return math.floor((tat - now) * perMs + 0.5), false end
  return 0, false
end
local function gcra_set(key, now, ahead, perMs, held)
  if on_server_time and EXPIRY_TAT and perMs <= 10000 and ahead < MAX_EXPIRY_AHEAD then
    local ms = math.ceil(ahead / perMs)
    if held then
      redis.call('PEXPIREAT', key, exact(now + ms + SLACK_MS))
    else
      redis.call('SET', key, exact(ms * perMs - ahead), 'PXAT', exact(now + ms + SLACK_MS))
    end
    return
  end
  local ttl = ahead / perMs
  local value = now + ttl
  if value % 1 ~= 0 and now % 1 == 0 and now >= 1e11 and (1000 / perMs) % 1 == 0 then
    local us = now * 1000 + ahead * (1000 / perMs)
    if us < 9007199254740992 then value = us end
  end
  redis.call('SET', key, exact(value), 'PX', px(ttl))
end
local function gcra(key, now, cost, interval, perMs, burst)
  local tolerance = burst * interval
  local ahead, held = gcra_ahead(key, now, perMs)
  local increment = cost * interval
  local nxt = ahead + increment
  if nxt <= tolerance then
    if cost > 0 then gcra_set(key, now, nxt, perMs, held) end
    return 1, math.floor((tolerance - nxt) / interval), 0, nxt
  end
  local retry = -1
  if increment <= tolerance then retry = nxt - tolerance end
  local remaining = 0
  if ahead < tolerance then remaining = math.floor((tolerance - ahead) / interval) end
  return 0, remaining, retry, ahead
end

local function at_most(key, now, max, p1, p2, p3)
  local r = {gcra(key, now, 0, p1, p2, p3)}
  local n = math.min(max, r[2])
  if n > 0 then return n, gcra(key, now, n, p1, p2, p3) end
  return 0, gcra(key, now, 1, p1, p2, p3)
end
local clock = server_now()
local deadline = tonumber(ARGV[6])
if deadline ~= nil and clock >= deadline then return {-2, clock} end
local now = use_now(ARGV[1], clock)
local ok, n, r1, r2, r3, r4 = pcall(at_most, KEYS[1], now, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
if not ok then
  if type(n) == 'table' then n = n.err end
  return {tostring(n), 0, 0, 0, 0, clock}
end
return {n, r1, r2, r3, r4, clock}
