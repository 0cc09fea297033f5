import { decodeMsReply, luaTwin } from './lua-common.js';

/**
 * Lua twin of `SlidingLogAlgorithm.step` (@sluice/core sliding-log.ts): one sorted-set
 * entry per admitted unit of cost, scored by its time; an entry counts while
 * now - windowMs < score. Members are `"<time>:<n>"`, n counting the entries at that same time,
 * so two units at the same millisecond are two entries (unique members). Denied attempts
 * are not logged.
 *
 * Params: limit, windowMs.
 * Returns `allowed, remaining, retryMs (-1 = never), resetMs`.
 */
const SLIDING_LOG_FN = `local function sliding_log(key, now, cost, limit, w)
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
`;

/** The sliding-log twin: its scripts and their decoder. */
export const SLIDING_LOG = luaTwin('sliding_log', 2, 4, SLIDING_LOG_FN, decodeMsReply);
/** Sliding log on one key (see `LuaTwin.single`). */
export const SLIDING_LOG_LUA = SLIDING_LOG.single.source;
/** Sliding log on many keys in one call (see `LuaTwin.batch`). */
export const SLIDING_LOG_BATCH_LUA = SLIDING_LOG.batch.source;
