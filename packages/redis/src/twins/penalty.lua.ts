import { blocked, type PenaltyAlgorithm } from '@sluice/core/store';
import { type LuaTwin, luaTwin } from './lua-common.js';

/**
 * The suffix of a key's penalty key: `<key>!block`, beside the key (after a Cluster hash
 * tag, so in the same slot). sluice's HTTP keys never hold a `!` (such a segment is hashed).
 */
const BLOCK_SUFFIX = '!block';

/**
 * The Lua twin of `PenaltyAlgorithm` (@sluice/core penalty.ts) over `inner`'s twin: the
 * inner state where `inner` keeps it, `"<blockedUntil>,<watchUntil>,<lastBlockMs>"` in
 * `<key>!block`, both decided by one function in one script (atomic across processes).
 *
 * Function `<inner>_penalty(key, now, cost, blockMs, backoff, maxBlock, ...inner params)`:
 * while blocked, the inner peek with `allowed` and `remaining` set to 0; else the inner
 * decision, and when it is a denial that could ever be admitted, a block (`ceil(last x
 * backoff)` capped at maxBlock while the key is watched, else blockMs) written and the same
 * zeros. Returns the inner twin's values, then `1, ms left of the block` when blocked or
 * just blocked, else `0, 0`. Its refund gives back through the inner refund.
 */
export function penaltyTwin(inner: LuaTwin): LuaTwin {
  const w = inner.width;
  const ps = Array.from({ length: inner.params }, (_, i) => `p${i + 1}`).join(', ');
  const name = `${inner.name}_penalty`;
  const fn = `local function ${name}(key, now, cost, blockMs, backoff, maxBlock, ${ps})
  local bkey = key .. '${BLOCK_SUFFIX}'
  local blockedUntil, watchUntil, last = 0, 0, 0
  local stored = redis.call('GET', bkey)
  if stored then
    blockedUntil, watchUntil, last = state_numbers(stored, 3)
    if watchUntil <= now then blockedUntil, watchUntil, last = 0, 0, 0 end
  end
  if blockedUntil > now then
    local r = {${inner.name}(key, now, 0, ${ps})}
    r[1] = 0
    r[2] = 0
    r[${w + 1}] = 1
    r[${w + 2}] = blockedUntil - now
    return unpack(r, 1, ${w + 2})
  end
  local r = {${inner.name}(key, now, cost, ${ps})}
  if r[1] == 1 or r[3] == -1 then
    r[${w + 1}] = 0
    r[${w + 2}] = 0
    return unpack(r, 1, ${w + 2})
  end
  local block = blockMs
  if watchUntil > now and last > 0 then block = math.min(maxBlock, math.ceil(last * backoff)) end
  local untilMs = now + block
  redis.call('SET', bkey, exact(untilMs) .. ',' .. exact(untilMs + block) .. ',' .. exact(block), 'PX', px(2 * block))
  r[1] = 0
  r[2] = 0
  r[${w + 1}] = 1
  r[${w + 2}] = block
  return unpack(r, 1, ${w + 2})
end
`;
  const refund = `local function ${name}_refund(key, now, cost, at, reset, blockMs, backoff, maxBlock, ${ps})
  ${inner.name}_refund(key, now, cost, at, reset, ${ps})
  return ${name}(key, now, 0, blockMs, backoff, maxBlock, ${ps})
end
`;
  const decode = (reply: number[], at: number, algorithm: PenaltyAlgorithm, cost: number) => {
    const d = inner.decode(reply, at, algorithm.inner, cost);
    return reply[at + w] === 1 ? blocked(d, reply[at + w + 1]!, cost) : d;
  };
  // The inner function (and its refund) go before the penalty's in every script.
  const twin = luaTwin({
    name,
    params: ['blockMs', 'backoff', 'maxBlock', ...inner.paramNames.map((_, i) => `p${i + 1}`)],
    returns: [...inner.returnNames, 'blocked', 'blockLeftMs'],
    fn: inner.fn + inner.refund + fn,
    decode,
    refund,
  });
  return { ...twin, inner };
}
