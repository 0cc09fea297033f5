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
local function gcra_refund(key, now, cost, at, reset, interval, perMs, burst)
  local ahead, held = gcra_ahead(key, now, perMs)
  if ahead > 0 or cost < 0 then
    local left = ahead - cost * interval
    if left <= 0 then
      redis.call('DEL', key)
    else
      gcra_set(key, now, left, perMs, held)
    end
  end
  return gcra(key, now, 0, interval, perMs, burst)
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
local function sliding_window_refund(key, now, cost, at, reset, limit, w)
  local start = math.floor(at / w) * w
  local stored = redis.call('GET', key)
  if stored then
    local s, p, c = state_numbers(stored, 3)
    local found = true
    if s == start then
      c = math.max(0, c - cost)
    elseif s == start + w then
      p = math.max(0, p - cost)
    else
      found = false
    end
    if found then
      if p == 0 and c == 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, exact(s) .. ',' .. p .. ',' .. c, 'KEEPTTL')
      end
    end
  end
  return sliding_window(key, now, 0, limit, w)
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
local function sliding_log_refund(key, now, cost, at, reset, limit, w)
  local score = exact(at)
  local members = redis.call('ZRANGEBYSCORE', key, score, score)
  local seqs = {}
  for i = 1, #members do seqs[i] = tonumber(string.match(members[i], ':(%d+)$')) end
  table.sort(seqs)
  local last = #seqs
  local first = math.max(1, last - cost + 1)
  while last >= first do
    local args = {}
    for j = last, math.max(first, last - 999), -1 do args[#args + 1] = score .. ':' .. seqs[j] end
    redis.call('ZREM', key, unpack(args))
    last = last - #args
  end
  return sliding_log(key, now, 0, limit, w)
end
local function calendar_end(t, e0, e1, e2, e3)
  if t < e1 then return e1 end
  if t < e2 then return e2 end
  if t < e3 then return e3 end
  local span = e3 - e2
  return e3 + span * (math.floor((t - e3) / span) + 1)
end
local function calendar_window(key, now, cost, limit, e0, e1, e2, e3)
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
    if count == 0 then windowEnd = calendar_end(now, e0, e1, e2, e3) end
    count = count + cost
    redis.call('SET', key, exact(windowEnd) .. ',' .. count, 'PX', px(windowEnd - now))
    return 1, limit - count, 0, windowEnd - now
  end
  local retry = -1
  if cost <= limit then retry = windowEnd - now end
  return 0, math.max(0, limit - count), retry, windowEnd - now
end
local function calendar_window_refund(key, now, cost, at, reset, limit, e0, e1, e2, e3)
  local stored = redis.call('GET', key)
  if cost < 0 then
    local e, c = calendar_end(now, e0, e1, e2, e3), 0
    if stored then
      local se, sc = state_numbers(stored, 2)
      if se > now then e, c = se, sc end
    end
    redis.call('SET', key, exact(e) .. ',' .. (c - cost), 'PX', px(e - now))
  elseif stored then
    local e, c = state_numbers(stored, 2)
    if e > now and calendar_end(at, e0, e1, e2, e3) == e then
      c = c - cost
      if c <= 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, exact(e) .. ',' .. c, 'KEEPTTL')
      end
    end
  end
  return calendar_window(key, now, 0, limit, e0, e1, e2, e3)
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
local function gcra_refund(key, now, cost, at, reset, interval, perMs, burst)
  local ahead, held = gcra_ahead(key, now, perMs)
  if ahead > 0 or cost < 0 then
    local left = ahead - cost * interval
    if left <= 0 then
      redis.call('DEL', key)
    else
      gcra_set(key, now, left, perMs, held)
    end
  end
  return gcra(key, now, 0, interval, perMs, burst)
end
local function gcra_penalty(key, now, cost, blockMs, backoff, maxBlock, p1, p2, p3)
  local bkey = key .. '!block'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {gcra(key, now, 0, p1, p2, p3)}
    r[1] = 0
    r[2] = 0
    r[5] = 1
    r[6] = blockedUntil - now
    return unpack(r, 1, 6)
  end
  local r = {gcra(key, now, cost, p1, p2, p3)}
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
local function gcra_penalty_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, p1, p2, p3)
  gcra_refund(key, now, cost, at, reset, p1, p2, p3)
  return gcra_penalty(key, now, 0, blockMs, backoff, maxBlock, p1, p2, p3)
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
local function fixed_window_penalty_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, p1, p2)
  fixed_window_refund(key, now, cost, at, reset, p1, p2)
  return fixed_window_penalty(key, now, 0, blockMs, backoff, maxBlock, p1, p2)
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
local function sliding_window_refund(key, now, cost, at, reset, limit, w)
  local start = math.floor(at / w) * w
  local stored = redis.call('GET', key)
  if stored then
    local s, p, c = state_numbers(stored, 3)
    local found = true
    if s == start then
      c = math.max(0, c - cost)
    elseif s == start + w then
      p = math.max(0, p - cost)
    else
      found = false
    end
    if found then
      if p == 0 and c == 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, exact(s) .. ',' .. p .. ',' .. c, 'KEEPTTL')
      end
    end
  end
  return sliding_window(key, now, 0, limit, w)
end
local function sliding_window_penalty(key, now, cost, blockMs, backoff, maxBlock, p1, p2)
  local bkey = key .. '!block'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {sliding_window(key, now, 0, p1, p2)}
    r[1] = 0
    r[2] = 0
    r[7] = 1
    r[8] = blockedUntil - now
    return unpack(r, 1, 8)
  end
  local r = {sliding_window(key, now, cost, p1, p2)}
  if r[1] == 1 or r[3] == -1 then
    r[7] = 0
    r[8] = 0
    return unpack(r, 1, 8)
  end
  local block = blockMs
  if watchUntil > now and last > 0 then block = math.min(maxBlock, math.ceil(last * backoff)) end
  local untilMs = now + block
  redis.call('SET', bkey, exact(untilMs) .. ',' .. exact(untilMs + block) .. ',' .. exact(block), 'PX', px(2 * block))
  r[1] = 0
  r[2] = 0
  r[7] = 1
  r[8] = block
  return unpack(r, 1, 8)
end
local function sliding_window_penalty_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, p1, p2)
  sliding_window_refund(key, now, cost, at, reset, p1, p2)
  return sliding_window_penalty(key, now, 0, blockMs, backoff, maxBlock, p1, p2)
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
local function sliding_log_refund(key, now, cost, at, reset, limit, w)
  local score = exact(at)
  local members = redis.call('ZRANGEBYSCORE', key, score, score)
  local seqs = {}
  for i = 1, #members do seqs[i] = tonumber(string.match(members[i], ':(%d+)$')) end
  table.sort(seqs)
  local last = #seqs
  local first = math.max(1, last - cost + 1)
  while last >= first do
    local args = {}
    for j = last, math.max(first, last - 999), -1 do args[#args + 1] = score .. ':' .. seqs[j] end
    redis.call('ZREM', key, unpack(args))
    last = last - #args
  end
  return sliding_log(key, now, 0, limit, w)
end
local function sliding_log_penalty(key, now, cost, blockMs, backoff, maxBlock, p1, p2)
  local bkey = key .. '!block'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {sliding_log(key, now, 0, p1, p2)}
    r[1] = 0
    r[2] = 0
    r[5] = 1
    r[6] = blockedUntil - now
    return unpack(r, 1, 6)
  end
  local r = {sliding_log(key, now, cost, p1, p2)}
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
local function sliding_log_penalty_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, p1, p2)
  sliding_log_refund(key, now, cost, at, reset, p1, p2)
  return sliding_log_penalty(key, now, 0, blockMs, backoff, maxBlock, p1, p2)
end
local function calendar_end(t, e0, e1, e2, e3)
  if t < e1 then return e1 end
  if t < e2 then return e2 end
  if t < e3 then return e3 end
  local span = e3 - e2
  return e3 + span * (math.floor((t - e3) / span) + 1)
end
local function calendar_window(key, now, cost, limit, e0, e1, e2, e3)
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
    if count == 0 then windowEnd = calendar_end(now, e0, e1, e2, e3) end
    count = count + cost
    redis.call('SET', key, exact(windowEnd) .. ',' .. count, 'PX', px(windowEnd - now))
    return 1, limit - count, 0, windowEnd - now
  end
  local retry = -1
  if cost <= limit then retry = windowEnd - now end
  return 0, math.max(0, limit - count), retry, windowEnd - now
end
local function calendar_window_refund(key, now, cost, at, reset, limit, e0, e1, e2, e3)
  local stored = redis.call('GET', key)
  if cost < 0 then
    local e, c = calendar_end(now, e0, e1, e2, e3), 0
    if stored then
      local se, sc = state_numbers(stored, 2)
      if se > now then e, c = se, sc end
    end
    redis.call('SET', key, exact(e) .. ',' .. (c - cost), 'PX', px(e - now))
  elseif stored then
    local e, c = state_numbers(stored, 2)
    if e > now and calendar_end(at, e0, e1, e2, e3) == e then
      c = c - cost
      if c <= 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, exact(e) .. ',' .. c, 'KEEPTTL')
      end
    end
  end
  return calendar_window(key, now, 0, limit, e0, e1, e2, e3)
end
local function calendar_window_penalty(key, now, cost, blockMs, backoff, maxBlock, p1, p2, p3, p4, p5)
  local bkey = key .. '!block'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {calendar_window(key, now, 0, p1, p2, p3, p4, p5)}
    r[1] = 0
    r[2] = 0
    r[5] = 1
    r[6] = blockedUntil - now
    return unpack(r, 1, 6)
  end
  local r = {calendar_window(key, now, cost, p1, p2, p3, p4, p5)}
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
local function calendar_window_penalty_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, p1, p2, p3, p4, p5)
  calendar_window_refund(key, now, cost, at, reset, p1, p2, p3, p4, p5)
  return calendar_window_penalty(key, now, 0, blockMs, backoff, maxBlock, p1, p2, p3, p4, p5)
end

local STEP = {gcra, fixed_window, sliding_window, sliding_log, calendar_window, gcra_penalty, fixed_window_penalty, sliding_window_penalty, sliding_log_penalty, calendar_window_penalty}
local REFUND = {gcra_refund, fixed_window_refund, sliding_window_refund, sliding_log_refund, calendar_window_refund, gcra_penalty_refund, fixed_window_penalty_refund, sliding_window_penalty_refund, sliding_log_penalty_refund, calendar_window_penalty_refund}
local ARITY = {3, 2, 2, 2, 5, 6, 5, 5, 5, 8}
local W = 8
local S = 9
local clock = server_now()
local deadline = tonumber(ARGV[1])
if deadline ~= nil and clock >= deadline then return {-2, clock} end
local mode = tonumber(ARGV[2])
local units = tonumber(ARGV[3])
local share = tonumber(ARGV[4])
local requests = tonumber(ARGV[5])
local out = {}
local function put(i, r, took)
  for j = 1, W do out[(i - 1) * S + j] = r[j] or 0 end
  out[i * S] = took
end
local kind, cost, give, at, reset, args = {}, {}, {}, {}, {}, {}
local function decide(first, last, now)
  for i = first, last do
    if give[i] > 0 then REFUND[kind[i]](KEYS[i], now, give[i], at[i], reset[i], unpack(args[i])) end
  end
  if mode == 2 then
    for i = first, last do put(i, {}, 0) end
    return 0
  end
  local peeks = {}
  local fits = true
  for i = first, last do
    peeks[i] = {STEP[kind[i]](KEYS[i], now, 0, unpack(args[i]))}
    if cost[i] > peeks[i][2] then fits = false end
  end
  if not fits then
    for i = first, last do
      if cost[i] > peeks[i][2] then
        put(i, {STEP[kind[i]](KEYS[i], now, cost[i], unpack(args[i]))}, 0)
      else
        put(i, peeks[i], 0)
      end
    end
    return 0
  end
  for i = first, last do
    local take = math.min(units, math.floor(peeks[i][2] / share))
    if take < cost[i] or cost[i] == 0 then take = cost[i] end
    put(i, {STEP[kind[i]](KEYS[i], now, take, unpack(args[i]))}, take)
  end
  return 1
end
local status = {}
local b = 6
local k = 0
for r = 1, requests do
  local m = tonumber(ARGV[b])
  local now = use_now(ARGV[b + 1], clock)
  b = b + 2
  for i = k + 1, k + m do
    local t = tonumber(ARGV[b])
    kind[i] = t
    cost[i] = tonumber(ARGV[b + 1])
    give[i] = tonumber(ARGV[b + 2])
    at[i] = tonumber(ARGV[b + 3])
    reset[i] = tonumber(ARGV[b + 4])
    local a = {}
    for j = 1, ARITY[t] do a[j] = tonumber(ARGV[b + 4 + j]) end
    args[i] = a
    b = b + 5 + ARITY[t]
  end
  local ok, result = pcall(decide, k + 1, k + m, now)
  if ok then
    status[r] = result
  else
    status[r] = -1
    for j = k * S + 1, (k + m) * S do out[j] = 0 end
    if type(result) == 'table' then result = result.err end
    out[k * S + 1] = tostring(result)
  end
  k = k + m
end
for r = 1, requests do out[k * S + r] = status[r] end
out[k * S + requests + 1] = clock
return out
