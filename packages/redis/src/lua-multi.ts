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
export const MULTI_WIDTH = 6;

/**
 * The all-or-nothing script over `twins` (each algorithm's Lua function and its refund,
 * the very text its single and batch scripts run), so one request's limits on one Redis
 * node (standalone, or one Cluster slot) are decided in one atomic call, whatever their
 * algorithms.
 *
 * KEYS = the request's keys (one slot). ARGV = deadline ('' = none; past it, on Redis
 * `TIME`, the reply is `{EXPIRED, TIME}` and nothing is touched), now ('' = Redis TIME),
 * mode ({@link MultiMode}), then per key: the twin's index in `twins` (from 1), cost,
 * (`Refund` only: the charge's time and its reply's 4th value), the algorithm's params.
 *
 * `Charge` peeks every key (cost 0), then, if each fits (`cost <= remaining`), runs each
 * key's function with its cost; otherwise runs it only for the keys that do not fit (their
 * real denial, which charges nothing) and answers the others' peeks.
 *
 * Reply: per key {@link MULTI_WIDTH} values (the twin's, padded with 0s), then 1 if the keys
 * were charged (else 0), then Redis `TIME` in ms.
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
local now = tonumber(ARGV[2]) or clock
local mode = tonumber(ARGV[3])
local extra = 0
if mode == ${MultiMode.Refund} then extra = 2 end
local n = #KEYS
local kind, cost, args = {}, {}, {}
local b = 4
for i = 1, n do
  local t = tonumber(ARGV[b])
  kind[i] = t
  cost[i] = tonumber(ARGV[b + 1])
  local a = {}
  for j = 1, ARITY[t] + extra do a[j] = tonumber(ARGV[b + 1 + j]) end
  args[i] = a
  b = b + 2 + ARITY[t] + extra
end
local out = {}
local function put(i, r)
  for j = 1, W do out[(i - 1) * W + j] = r[j] or 0 end
end
local charged = 0
if mode == ${MultiMode.Refund} then
  for i = 1, n do put(i, {REFUND[kind[i]](KEYS[i], now, cost[i], unpack(args[i]))}) end
else
  local peeks = {}
  local fits = true
  for i = 1, n do
    peeks[i] = {STEP[kind[i]](KEYS[i], now, 0, unpack(args[i]))}
    if cost[i] > peeks[i][2] then fits = false end
  end
  if fits and mode == ${MultiMode.Charge} then charged = 1 end
  for i = 1, n do
    if charged == 1 or cost[i] > peeks[i][2] then
      put(i, {STEP[kind[i]](KEYS[i], now, cost[i], unpack(args[i]))})
    else
      put(i, peeks[i])
    end
  end
end
out[n * W + 1] = charged
out[n * W + 2] = clock
return out
`);
}
