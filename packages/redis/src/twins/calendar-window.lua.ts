import { decodeMsReply, luaTwin } from './lua-common.js';

/**
 * Lua twin of `CalendarWindowAlgorithm.step` (@sluice/core calendar-window.ts): a fixed
 * window whose edges are the local calendar's. Lua has no time zones, so the caller passes
 * four consecutive edges computed in TypeScript around its own clock (`calendarEdges`:
 * `e1 <= caller's now < e2`), and the script finds the window of its own `now` among them:
 * with `clock: 'server'` Redis `TIME` decides which window a request falls in, the edges
 * only describe the calendar, so servers whose clocks disagree by less than a window still
 * agree on the count. A `now` past `e3` (a clock a whole window off) continues in windows
 * of the last one's length. One string key `"<windowEnd>,<count>"`, as the fixed window's.
 *
 * Params: limit, e0, e1, e2, e3.
 * Returns `allowed (0|1), remaining, retryMs (-1 = never), resetMs`.
 */
const CALENDAR_WINDOW_FN = `local function calendar_end(t, e0, e1, e2, e3)
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
`;

/**
 * Gives back `cost` units charged at `at`: only from the window that held `at` (found among
 * the edges as for a decision) while it is still current; its count drops by `cost`
 * (exact), the key is deleted at 0. Nothing when that window is over. A negative `cost`
 * charges `-cost` units past the limit into the current window (a debt, `Limit.costAfter`).
 */
const CALENDAR_WINDOW_REFUND = `local function calendar_window_refund(key, now, cost, at, reset, limit, e0, e1, e2, e3)
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
`;

/** The calendar-window twin: its scripts and their decoder. */
export const CALENDAR_WINDOW = luaTwin({
  name: 'calendar_window',
  params: ['limit', 'e0', 'e1', 'e2', 'e3'],
  returns: ['allowed', 'remaining', 'retryMs', 'resetMs'],
  fn: CALENDAR_WINDOW_FN,
  decode: decodeMsReply,
  refund: CALENDAR_WINDOW_REFUND,
});
