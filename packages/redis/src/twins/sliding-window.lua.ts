import type { Decision } from '@sluice/core';
import type { SlidingWindowAlgorithm } from '@sluice/core/store';
import { luaTwin } from './lua-common.js';

/**
 * Lua twin of `SlidingWindowAlgorithm.step` (@sluice/core sliding-window.ts): epoch-aligned
 * windows, previous window weighted by overlap, all sums scaled by windowMs so they stay
 * integers. One string key `"<currentWindowStart>,<previousCount>,<currentCount>"`.
 *
 * Params: limit, windowMs.
 * Returns `allowed, remaining, retryBase, retryNum, retryDen, resetMs`; retryAfterMs is
 * `(retryBase x retryDen + retryNum) / retryDen` (-1 in retryBase = never), the same single
 * division the TS engine does, so both give the same double.
 */
const SLIDING_WINDOW_FN = `local function sliding_window(key, now, cost, limit, w)
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
`;

/**
 * Gives back `cost` units charged at `at`: from the current count while the window of `at`
 * is current, from the previous count once the next window has started (exact either way);
 * nothing later. A key left with both counts 0 is deleted.
 */
const SLIDING_WINDOW_REFUND = `local function sliding_window_refund(key, now, cost, at, reset, limit, w)
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
`;

/** Builds the {@link Decision} from a sliding-window twin's reply. */
function decodeSlidingWindow(
  reply: number[],
  at: number,
  algorithm: SlidingWindowAlgorithm,
  cost: number,
): Decision {
  const base = reply[at + 2]!;
  const num = reply[at + 3]!;
  let retryAfterMs: number;
  if (base < 0) retryAfterMs = -1;
  else if (num === 0) retryAfterMs = base;
  // One division, as the TS engine does: (base x den + num) / den.
  else retryAfterMs = (base * reply[at + 4]! + num) / reply[at + 4]!;
  return {
    allowed: reply[at] === 1,
    limit: algorithm.limit,
    remaining: reply[at + 1]!,
    retryAfterMs,
    resetAfterMs: reply[at + 5]!,
    cost,
  };
}

/** The sliding-window twin: its scripts and their decoder. */
export const SLIDING_WINDOW = luaTwin({
  name: 'sliding_window',
  params: ['limit', 'w'],
  returns: ['allowed', 'remaining', 'retryBase', 'retryNum', 'retryDen', 'resetMs'],
  fn: SLIDING_WINDOW_FN,
  decode: decodeSlidingWindow,
  refund: SLIDING_WINDOW_REFUND,
});
/** Sliding window on one key (see `LuaTwin.single`). */
export const SLIDING_WINDOW_LUA = SLIDING_WINDOW.single.source;
/** Sliding window on many keys in one call (see `LuaTwin.batch`). */
export const SLIDING_WINDOW_BATCH_LUA = SLIDING_WINDOW.batch.source;
