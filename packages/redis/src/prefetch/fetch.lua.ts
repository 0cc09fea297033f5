import { EXPIRED, LUA_PRELUDE, type LuaTwin } from '../twins/lua-common.js';
import { MULTI_WIDTH } from '../twins/lua-multi.js';
import { LuaScript } from '../twins/lua-script.js';

/**
 * What the prefetch script does with its keys (ARGV[2]): `Fetch`: give back each key's
 * `give` units, then, if every key of a request fits its `cost`, charge each key
 * `fetch(remaining)` units (at least `cost`, at most `units`); else charge none (the
 * decisions of a denied request). `GiveBack`: only give back each key's `give` units.
 */
export const FetchMode = { Fetch: 1, GiveBack: 2 } as const;

/** Values per key in the prefetch script's reply: the twin's (padded), then the units taken. */
export const FETCH_STRIDE = MULTI_WIDTH + 1;

/**
 * The prefetch script over `twins` (each algorithm's Lua function and its refund, the very
 * text its single and batch scripts run): one request's keys on one Redis node are fetched
 * all-or-nothing in one atomic call; one call may carry several requests (decided one
 * after the other).
 *
 * How much a fetch takes: `min(units, floor(remaining / share))`, and at least the
 * request's `cost`, where `remaining` is the key's peek: a key with much left hands out
 * `units`, a key near its limit hands out less, and one with fewer than `share` units left
 * hands out only what the request asks for (decided in Redis request by request). A
 * key asked for with cost 0 (a peek in a multi-limit request) is not fetched.
 *
 * KEYS = every request's keys, in order. ARGV = deadline ('' = none; past it, on Redis
 * `TIME`, the reply is `{EXPIRED, TIME}` and nothing is touched), mode ({@link FetchMode},
 * for every request of the call), units, share, the number of requests, then per request: its number of keys, its now
 * ('' = Redis TIME), then per key: the twin's index in `twins` (from 1), cost, give, the
 * give-back's charge time and that charge's 4th reply value (see `LuaTwin.refund`), the
 * algorithm's params.
 *
 * Reply: per key {@link FETCH_STRIDE} values (the twin's decision for the units taken, or
 * for `cost` when nothing was taken, padded to {@link MULTI_WIDTH}; then the units taken),
 * then per request 1 if its keys were charged, 0 if not, -1 if a function raised an error
 * (its first value is then the message), then Redis `TIME` in ms.
 */
export function fetchScript(twins: readonly LuaTwin[]): LuaScript {
  if (twins.some((t) => t.width > MULTI_WIDTH)) throw new Error('a twin wider than MULTI_WIDTH');
  const list = (f: (t: LuaTwin) => string) => twins.map(f).join(', ');
  return new LuaScript(`${LUA_PRELUDE}${twins.map((t) => t.fn + t.refund).join('')}
local STEP = {${list((t) => t.name)}}
local REFUND = {${list((t) => `${t.name}_refund`)}}
local ARITY = {${list((t) => String(t.params))}}
local W = ${MULTI_WIDTH}
local S = ${FETCH_STRIDE}
local clock = server_now()
local deadline = tonumber(ARGV[1])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
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
  if mode == ${FetchMode.GiveBack} then
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
`);
}
