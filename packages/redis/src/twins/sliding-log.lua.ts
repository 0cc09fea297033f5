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

/**
 * Gives back `cost` units charged at `at`: removes `cost` entries scored `at` (exact: the
 * log is then what it would be without the charge), the highest-numbered ones, so the
 * members left at that time stay `"<at>:1"` .. `"<at>:k"` and the next ones do not collide.
 */
const SLIDING_LOG_REFUND = `local function sliding_log_refund(key, now, cost, at, reset, limit, w)
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
`;

/** The sliding-log twin: its scripts and their decoder. */
export const SLIDING_LOG = luaTwin({
  name: 'sliding_log',
  params: ['limit', 'w'],
  returns: ['allowed', 'remaining', 'retryMs', 'resetMs'],
  fn: SLIDING_LOG_FN,
  decode: decodeMsReply,
  refund: SLIDING_LOG_REFUND,
});
/** Sliding log on one key (see `LuaTwin.single`). */
export const SLIDING_LOG_LUA = SLIDING_LOG.single.source;
/** Sliding log on many keys in one call (see `LuaTwin.batch`). */
export const SLIDING_LOG_BATCH_LUA = SLIDING_LOG.batch.source;
