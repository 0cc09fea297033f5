import type { Decision } from '@sluice/core';
import type { GcraAlgorithm } from '@sluice/core/store';
import { luaTwin, type Packing } from './lua-common.js';

/**
 * Where a GCRA key keeps its TAT. Two forms:
 *
 * - **Expiry form** (on Redis `TIME`, the store's default clock, on Redis >= 7.0, when a tick
 *   is at least 1/10 000 ms and the TAT is less than 2^40 ticks ahead): the TAT rounded up to
 *   a whole ms is the key's expiry minus `SLACK_MS` (`SET ... PXAT`, read back with
 *   `PEXPIRETIME`), and the value is how many ticks the TAT is short of that whole ms
 *   (0 <= value < ticksPerMs <= 10 000). Such a value is one of Redis's shared integers, so
 *   the key holds no value object of its own: 16 B less per key than an integer TAT
 *   (`INFO memory`), for one more read per decision. Exact: all in whole ticks.
 * - **Value form** (otherwise: the client's clock, whose time base the server's expiry
 *   cannot carry, or Redis < 7.0): the value is the TAT in ms since the epoch, an integer
 *   when it is a whole ms; a TAT with a fraction of a ms is stored as whole µs when a tick is
 *   a whole number of µs (ticksPerMs divides 1000, e.g. 1 000 000/s), else as ms in
 *   `%.17g` text. Integers are int-encoded by Redis. µs values are >= 1e14 (written only
 *   for now >= 1e11 ms, after 1973), ms values stay below 1e14 (now + the tolerance, which
 *   the engine caps at `MAX_TOLERANCE_MS` = 5e13 ms, until the year 3554): never confused.
 *
 * A value below ticksPerMs read on Redis `TIME` is the expiry form; any other is the value
 * form (a TAT in ms is >= 1e11), so keys written before the expiry form existed read as
 * before. One key is used with one clock setting: a client-clock limiter would read an
 * expiry-form value as a TAT in 1970 (a full bucket).
 *
 * **Whole-ms intervals** (ticksPerMs = 1: `60/min`, `100/min`, `1000/s`, most limits) in the
 * expiry form keep a value of 0, so a decision reads the expiry alone (`PEXPIRETIME`, no
 * `GET`) and moves it alone (`PEXPIREAT`; `SET` only for a new key): two Redis calls per
 * decision instead of three, and the cheaper write. A value-form key written on Redis
 * `TIME` expires at its TAT + `SLACK_MS` (its `PX` counted from the `SET`, a few µs after
 * the script read `TIME`), so it reads the same way, at most 1 ms late; its value is then
 * never read again on this path (nor by a refund), only kept until the key expires.
 *
 * perf: each `redis.call` costs about 0.3 to 0.6 µs of Redis CPU (argument objects, command
 * lookup, timing, the reply parsed back into Lua): most of a decision's cost.
 */
export const GCRA_STATE = `local EXPIRY_TAT = (redis.REDIS_VERSION_NUM or 0) >= 0x070000
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
`;

/**
 * Lua twin of `GcraAlgorithm.step` (@sluice/core gcra.ts): GCRA with redis-cell's
 * arithmetic on the same tick grid, one key holding the TAT ({@link GCRA_STATE}: in the
 * key's expiry on Redis `TIME`, else in its value).
 *
 * Params: intervalTicks, ticksPerMs, burst.
 * Returns `allowed (0|1), remaining, retryTicks (-1 = never), resetTicks`.
 */
const GCRA_FN = `${GCRA_STATE}local function gcra(key, now, cost, interval, perMs, burst)
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
`;

/**
 * Gives back `cost` units charged earlier: the TAT moves back by `cost` emission intervals
 * (a TAT moved to now or before is deleted: the same as a full bucket), read and written
as a decision reads and writes it (`gcra_ahead`, `gcra_set`). GCRA charges add
 * up while the key stays backlogged (TAT ahead of now), so the give-back is exact then,
 * whatever other requests charged or gave back in between, in any order. If the key
 * drained after the charge and a later request charged it from idle, the give-back can
 * exceed what the charge still held, by at most the time between the charge and that
 * later request (and never more than `cost` intervals). No floor at the TAT before the
 * charge: concurrent give-backs of one key would hit each other's floors and give back
 * too little. A key reset since the charge gives back from whatever charged it since.
 * (`at` and `reset`, the charge's time and resetTicks, are not needed.) A negative `cost`
 * charges `-cost` units past the limit, from now on an idle key (a debt, `Limit.costAfter`).
 */
const GCRA_REFUND = `local function gcra_refund(key, now, cost, at, reset, interval, perMs, burst)
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
`;
/**
 * Builds the {@link Decision} from the 4 numbers at `at` in a GCRA twin's reply (same
 * divisions as the TS engine).
 */
function decodeGcra(reply: number[], at: number, algorithm: GcraAlgorithm, cost: number): Decision {
  const perMs = algorithm.ticksPerMs;
  const retry = reply[at + 2]!;
  return {
    allowed: reply[at] === 1,
    limit: algorithm.limit,
    remaining: reply[at + 1]!,
    retryAfterMs: retry < 0 ? -1 : retry / perMs,
    resetAfterMs: reply[at + 3]! / perMs,
    cost,
  };
}

/**
 * The GCRA twin's decision in a single or batch reply: one number, the TAT's lead over now
 * in ticks (`reset`, the 4th result) doubled, plus one when the request was denied (then
 * the lead before it; after it when admitted). `GcraAlgorithm.decide` rebuilds the whole
 * decision from it, with the engine's own arithmetic: a quarter of the numbers Redis
 * encodes and the client parses.
 */
const GCRA_PACKING: Packing<GcraAlgorithm> = {
  width: 1,
  lua: '2 * r4 + 1 - r1',
  decode(reply, at, algorithm, cost) {
    const packed = reply[at]!;
    const ahead = packed % 2 === 1 ? (packed - 1) / 2 : packed / 2 - cost * algorithm.intervalTicks;
    return algorithm.decide(ahead, cost);
  },
};

/** The GCRA twin: its scripts and their decoders. */
export const GCRA = luaTwin({
  name: 'gcra',
  params: ['interval', 'perMs', 'burst'],
  returns: ['allowed', 'remaining', 'retryTicks', 'resetTicks'],
  fn: GCRA_FN,
  decode: decodeGcra,
  refund: GCRA_REFUND,
  packing: GCRA_PACKING,
});
/** GCRA on one key (see `LuaTwin.single`). */
export const GCRA_LUA = GCRA.single.source;
/** GCRA on many keys in one call (see `LuaTwin.batch`). */
export const GCRA_BATCH_LUA = GCRA.batch.source;
