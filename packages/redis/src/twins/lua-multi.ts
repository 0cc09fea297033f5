import { EXPIRED, LUA_PRELUDE, type LuaTwin } from './lua-common.js';
import { LuaScript } from './lua-script.js';

/**
 * What the all-or-nothing script does with its keys (ARGV[3]): `Report`: each key's
 * decision as in a denied request, nothing charged; `Charge`: charge every key if each
 * fits, else none (the decisions of a denied request); `Refund`: give back what a `Charge`
 * took (each twin's `refund`), then report each key's peek.
 */
export const MultiMode = { Report: 0, Charge: 1, Refund: 2 } as const;

/** Values per key in the all-or-nothing script's reply: the widest twin's. */
export const MULTI_WIDTH = 8;

/**
 * The all-or-nothing script over `twins` (each algorithm's Lua function and its refund,
 * the very text its single and batch scripts run), so one request's limits on one Redis
 * node (standalone, or one Cluster slot) are decided in one atomic call, whatever their
 * algorithms; one call may carry several requests (decided one after the other).
 *
 * KEYS = every request's keys, in order (one slot). ARGV = deadline ('' = none; past it, on
 * Redis `TIME`, the reply is `{EXPIRED, TIME}` and nothing is touched), mode
 * ({@link MultiMode}), the number of requests, then per request: its number of keys, its
 * now ('' = Redis TIME), then per key: the twin's index in `twins` (from 1), cost,
 * (`Refund` only: the charge's time and its reply's 4th value), the algorithm's params.
 *
 * `Charge` peeks every key of a request (cost 0), then, if each fits
 * (`cost <= remaining`), runs each key's function with its cost; otherwise runs it only for
 * the keys that do not fit (their real denial, which charges nothing) and answers the
 * others' peeks.
 *
 * Reply: per key {@link MULTI_WIDTH} values (the twin's, padded with 0s), then per request
 * 1 if its keys were charged, 0 if not, -1 if a function raised an error (its first value
 * is then the message; one bad request fails alone), then Redis `TIME` in ms.
 */
export function multiScript(twins: readonly LuaTwin[]): LuaScript {
  if (twins.some((t) => t.width > MULTI_WIDTH)) throw new Error('a twin wider than MULTI_WIDTH');
  const list = (f: (t: LuaTwin) => string) => twins.map(f).join(', ');
  return new LuaScript(`${LUA_PRELUDE}${twins.map((t) => t.fn + t.refund).join('')}
local STEP = {${list((t) => t.name)}}
local REFUND = {${list((t) => `${t.name}_refund`)}}
local ARITY = {${list((t) => String(t.params))}}
local W = ${MULTI_WIDTH}
local clock = server_now()
local deadline = tonumber(ARGV[1])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local mode = tonumber(ARGV[2])
local requests = tonumber(ARGV[3])
local extra = 0
if mode == ${MultiMode.Refund} then extra = 2 end
local out = {}
local function put(i, r)
  for j = 1, W do out[(i - 1) * W + j] = r[j] or 0 end
end
local kind, cost, args = {}, {}, {}
local function decide(first, last, now)
  if mode == ${MultiMode.Refund} then
    for i = first, last do put(i, {REFUND[kind[i]](KEYS[i], now, cost[i], unpack(args[i]))}) end
    return 0
  end
  local peeks = {}
  local fits = true
  for i = first, last do
    peeks[i] = {STEP[kind[i]](KEYS[i], now, 0, unpack(args[i]))}
    if cost[i] > peeks[i][2] then fits = false end
  end
  local charged = 0
  if fits and mode == ${MultiMode.Charge} then charged = 1 end
  for i = first, last do
    if charged == 1 or cost[i] > peeks[i][2] then
      put(i, {STEP[kind[i]](KEYS[i], now, cost[i], unpack(args[i]))})
    else
      put(i, peeks[i])
    end
  end
  return charged
end
local status = {}
local b = 4
local k = 0
for r = 1, requests do
  local m = tonumber(ARGV[b])
  local now = use_now(ARGV[b + 1], clock)
  b = b + 2
  for i = k + 1, k + m do
    local t = tonumber(ARGV[b])
    kind[i] = t
    cost[i] = tonumber(ARGV[b + 1])
    local a = {}
    for j = 1, ARITY[t] + extra do a[j] = tonumber(ARGV[b + 1 + j]) end
    args[i] = a
    b = b + 2 + ARITY[t] + extra
  end
  local ok, result = pcall(decide, k + 1, k + m, now)
  if ok then
    status[r] = result
  else
    status[r] = -1
    for j = k * W + 1, (k + m) * W do out[j] = 0 end
    if type(result) == 'table' then result = result.err end
    out[k * W + 1] = tostring(result)
  end
  k = k + m
end
for r = 1, requests do out[k * W + r] = status[r] end
out[k * W + requests + 1] = clock
return out
`);
}
