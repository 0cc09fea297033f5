import { decodeMsReply, luaTwin } from './lua-common.js';

/**
 * Lua twin of `FixedWindowAlgorithm.step` (@sluice/core fixed-window.ts): the window starts
 * at the key's first admitted hit. One string key `"<windowEnd>,<count>"`.
 *
 * Params: limit, windowMs.
 * Returns `allowed (0|1), remaining, retryMs (-1 = never), resetMs`.
 */
const FIXED_WINDOW_FN = `local function fixed_window(key, now, cost, limit, windowMs)
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
`;

/**
 * Gives back `cost` units charged at `at`: only from the window that held `at`
 * (`windowEnd - windowMs <= at < windowEnd`, the one window a charge at `at` can have gone
 * to) while it is still current; its count drops by `cost` (exact), the key is deleted at 0.
 * Nothing when that window is over. The window keeps its start even when the refunded
 * charge opened it and a later one joined it. (`reset` is not needed.) A negative `cost`
 * charges `-cost` units past the limit into the current window (a debt, `Limit.costAfter`).
 */
const FIXED_WINDOW_REFUND = `local function fixed_window_refund(key, now, cost, at, reset, limit, windowMs)
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
`;

/** The fixed-window twin: its scripts and their decoder. */
export const FIXED_WINDOW = luaTwin({
  name: 'fixed_window',
  params: ['limit', 'windowMs'],
  returns: ['allowed', 'remaining', 'retryMs', 'resetMs'],
  fn: FIXED_WINDOW_FN,
  decode: decodeMsReply,
  refund: FIXED_WINDOW_REFUND,
});
/** Fixed window on one key (see `LuaTwin.single`). */
export const FIXED_WINDOW_LUA = FIXED_WINDOW.single.source;
/** Fixed window on many keys in one call (see `LuaTwin.batch`). */
export const FIXED_WINDOW_BATCH_LUA = FIXED_WINDOW.batch.source;
