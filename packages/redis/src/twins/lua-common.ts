import type { Decision } from '@sluice/core';
import type { Algorithm } from '@sluice/core/store';
import { LuaScript } from './lua-script.js';

/**
 * The first value of a script's reply when Redis `TIME` had reached the call's deadline: the
 * script did nothing (see {@link LuaTwin.single}). A decision's first value is 0 or 1, a
 * failed key's -1: never this.
 */
export const EXPIRED = -2;

/** Milliseconds a key outlives its logical expiry (see {@link luaTwin}). */
export const SLACK_MS = 1000;

/**
 * Builds the {@link Decision} of one call from the `width` values at `at` in a reply of its
 * algorithm's twin (`algorithm` is the call's own).
 */
export type Decoder<A extends Algorithm = Algorithm> = (
  reply: number[],
  at: number,
  algorithm: A,
  cost: number,
) => Decision;

/**
 * One algorithm's Lua twin, written once as a Lua function and run by two scripts built
 * from it: {@link LuaTwin.single} (one key) and {@link LuaTwin.batch} (many keys in one
 * `EVALSHA`, each decided by the same function, in order), with the decoder of its replies.
 */
export interface LuaTwin {
  /** The Lua function's name. */
  readonly name: string;
  /** The Lua text of the function (`local function <name>(key, now, cost, ...params)`). */
  readonly fn: string;
  /**
   * The Lua text of its inverse, `local function <name>_refund(key, now, cost, at, reset,
   * ...params)`: gives back `cost` units that a call of the function charged at time `at`
   * (which answered `reset` as its 4th value), as exactly as the state allows (see the
   * twin's file), then returns the function's peek (cost 0) at `now`. Used by the
   * all-or-nothing script (lua-multi.ts) when a request spans Cluster slots.
   */
  readonly refund: string;
  /** How many algorithm parameters (`Algorithm.params`) the function takes after `cost`. */
  readonly params: number;
  /** Those parameters' names, in order (as the twin's file declares them). */
  readonly paramNames: readonly string[];
  /** The names of the values the function returns, in order (`width` of them). */
  readonly returnNames: readonly string[];
  /**
   * How many numbers the function returns (the width of one decision in the all-or-nothing
   * script's reply, decoded by {@link LuaTwin.decode}).
   */
  readonly width: number;
  /**
   * How many numbers one decision takes in a reply of {@link LuaTwin.single} and
   * {@link LuaTwin.batch}: `width`, or fewer when the twin packs its results (see
   * {@link Packing}); {@link LuaTwin.decodeReply} reads them.
   */
  readonly replyWidth: number;
  /**
   * KEYS[1] = the key. ARGV = now ('' for Redis TIME), cost, ...params, deadline.
   * Reply: the decision's `replyWidth` numbers, then Redis `TIME` in ms; or, when `TIME` has
   * reached the deadline (Redis ms since the epoch; '' or absent = none), `{EXPIRED, TIME}`
   * and nothing is read or written: a call its caller gave up on charges nothing. When the
   * function raised an error (the key holds another type, or another algorithm's value), its
   * message stands where the first value would (padded with 0s), as in `batch`: a Redis
   * error reply would read as the store failing.
   */
  readonly single: LuaScript;
  /**
   * KEYS = n keys. ARGV = ...params (shared by every key), then n pairs (now, cost), one
   * per key, in KEYS order, or a single pair that every key shares ('' as now takes Redis
   * TIME, read once per batch), then the deadline (as in `single`, one for the batch). Each key is decided after the previous
   * one, all in one atomic script. Reply: n groups of `replyWidth` values, flat, then `TIME`
   * in ms; or `{EXPIRED, TIME}` past the deadline (no key touched). A key whose function
   * raised an error answers its message (a string where a number would be; padded with 0s),
   * so one bad key fails its own decision only.
   */
  readonly batch: LuaScript;
  /**
   * A penalty twin's inner twin (its function is in `fn`, called by name): the at-most
   * script (at-most.lua.ts) asks it for a grant of 0's denial, which never blocks.
   */
  readonly inner?: LuaTwin;
  /** Builds a decision from the function's `width` values at `at` (all-or-nothing replies). */
  readonly decode: Decoder;
  /** Builds a decision from the `replyWidth` values at `at` in a reply of either script. */
  readonly decodeReply: Decoder;
}

/**
 * A twin's smaller reply for its single and batch scripts: `lua`, a Lua expression list of
 * `width` values over the function's results `r1`, `r2`, …, and the decoder of those values
 * (the call's own cost and algorithm in hand).
 *
 * perf: every number in a reply is encoded by Redis and parsed by the client (ioredis 6's
 * decoder: about 0.1 µs a number), per decision.
 */
export interface Packing<A extends Algorithm = Algorithm> {
  width: number;
  lua: string;
  decode: Decoder<A>;
}

/**
 * Lua shared by every script. `server_now()` is Redis `TIME` in whole ms since the Unix
 * epoch (like `Date.now()`); `now` is ARGV's when the store uses the client's clock.
 * `SLACK_MS`: keys outlive their logical expiry by this much, so a client clock a little
 * behind Redis never loses live state; logical expiry is always decided from the stored
 * value, never from the key's TTL.
 *
 * - `exact(x)`: `x` as text that reads back as the same double: `%d` for a whole number
 *   (below 2^53 here), else `%.17g`.
 * - `px(ms)`: the `PX` / `PEXPIRE` ms (text) of a key whose state expires in `ms`: rounded
 *   up to a whole ms, plus `SLACK_MS`.
 *
 * perf: `%d` formats an integer in a few hundred instructions; `%.17g` (and Redis's own
 * conversion of a Lua number argument, also `%.17g`) costs thousands in glibc's
 * multi-precision float printing: a third of a GCRA decision's Redis CPU, before.
 * - `use_now(arg, clock)`: the decision time of a call whose ARGV now is `arg` (Redis TIME,
 *   `clock`, when it is ''), and sets `on_server_time` to whether it is Redis TIME (the GCRA
 *   twin keeps its TAT in the key's expiry only then).
 * - `state_numbers(stored, n)`: the `n` numbers of a string state `"<x1>,...,<xn>"` (each
 *   field up to the next comma, the last one to the end of the string; `tonumber` of each,
 *   so nil for a field that is not a number, all nil when the text has fewer fields).
 */
export const LUA_PRELUDE = `local SLACK_MS = ${SLACK_MS}
local function server_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function exact(x)
  if x % 1 == 0 then return string.format('%d', x) end
  return string.format('%.17g', x)
end
local function px(ms)
  return string.format('%d', math.ceil(ms) + SLACK_MS)
end
local on_server_time = false
local function use_now(arg, clock)
  on_server_time = arg == ''
  return tonumber(arg) or clock
end
local function state_numbers(stored, n)
  local fields = {string.match(stored, '^' .. string.rep('([^,]+),', n - 1) .. '(.+)$')}
  for i = 1, n do fields[i] = tonumber(fields[i]) end
  return unpack(fields, 1, n)
end
`;

/**
 * A Lua twin as its file declares it: the function's name, its parameters after
 * `(key, now, cost)` and its results, each by name (`Algorithm.params` order for the
 * parameters), its Lua text, the decoder of its results, its inverse and, optionally, a
 * packed reply (see {@link Packing}).
 */
export interface LuaTwinSpec<A extends Algorithm> {
  /** The Lua function's name: `local function <name>(key, now, cost, <params>)`. */
  readonly name: string;
  /** Its parameters after `cost`, by name, in `Algorithm.params` order. */
  readonly params: readonly string[];
  /** The values it returns, by name, in order (the width of one decision). */
  readonly returns: readonly string[];
  /** The Lua text that defines it (and any helper it calls, before it). */
  readonly fn: string;
  /** Reads its results back into a `Decision`. */
  readonly decode: Decoder<A>;
  /** The Lua text of its inverse, `<name>_refund` (see {@link LuaTwin.refund}). */
  readonly refund: string;
  /** What the single and batch scripts reply instead of the results, when given. */
  readonly packing?: Packing<A>;
}

/**
 * Builds the single and batch scripts around a twin's function (every argument a number,
 * converted once per script call).
 *
 * @throws Error when `fn` does not define `<name>(key, now, cost, <params>)` with the
 *   parameters the spec names: a twin whose declaration and Lua text disagree never loads.
 */
export function luaTwin<A extends Algorithm>(spec: LuaTwinSpec<A>): LuaTwin {
  const { name, fn, decode, refund, packing } = spec;
  const signature = `local function ${name}(key, now, cost, ${spec.params.join(', ')})`;
  if (!fn.includes(signature)) {
    throw new Error(`sluice: the Lua twin ${name} does not define ${signature}`);
  }
  const params = spec.params.length;
  const width = spec.returns.length;
  const list = (n: number, make: (i: number) => string, separator = ', ') =>
    Array.from({ length: n }, (_, i) => make(i + 1)).join(separator);
  const results = list(width, (i) => `r${i}`);
  const replyWidth = packing?.width ?? width;
  const reply = packing?.lua ?? results;
  const single = `${LUA_PRELUDE}${fn}
local clock = server_now()
local deadline = tonumber(ARGV[${params + 3}])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local now = use_now(ARGV[1], clock)
local ok, ${results} = pcall(${name}, KEYS[1], now, tonumber(ARGV[2]), ${list(params, (i) => `tonumber(ARGV[${i + 2}])`)})
if not ok then
  if type(r1) == 'table' then r1 = r1.err end
  return {tostring(r1), ${list(replyWidth - 1, () => '0')}${replyWidth > 1 ? ', ' : ''}clock}
end
return {${reply}, clock}
`;
  const batch = `${LUA_PRELUDE}${fn}
local ${list(params, (i) => `p${i}`)} = ${list(params, (i) => `tonumber(ARGV[${i}])`)}
local clock = server_now()
local deadline = tonumber(ARGV[#ARGV])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local shared = #ARGV == ${params + 3}
local now, cost = use_now(ARGV[${params + 1}], clock), tonumber(ARGV[${params + 2}])
local out = {}
local n = 0
for i = 1, #KEYS do
  if not shared then
    local b = ${params - 1} + 2 * i
    now, cost = use_now(ARGV[b], clock), tonumber(ARGV[b + 1])
  end
  local ok, ${results} = pcall(${name}, KEYS[i], now, cost, ${list(params, (i) => `p${i}`)})
  if ok then
${packing === undefined ? list(width, (i) => `    out[n + ${i}] = r${i}`, '\n') : `    ${list(replyWidth, (i) => `out[n + ${i}]`)} = ${reply}`}
  else
    if type(r1) == 'table' then r1 = r1.err end
    out[n + 1] = tostring(r1)
${list(replyWidth - 1, (i) => `    out[n + ${i + 1}] = 0`, '\n')}
  end
  n = n + ${replyWidth}
end
out[n + 1] = clock
return out
`;
  return {
    name,
    fn,
    refund,
    params,
    paramNames: spec.params,
    returnNames: spec.returns,
    width,
    replyWidth,
    single: new LuaScript(single),
    batch: new LuaScript(batch),
    // Called only with algorithms of this twin's kind (the store picks the twin by kind).
    decode: decode as Decoder,
    decodeReply: (packing?.decode ?? decode) as Decoder,
  };
}

/**
 * Builds the {@link Decision} from the 4 numbers at `at` in a reply whose times are whole
 * ms: `allowed (0|1), remaining, retryMs (-1 = never), resetMs`. The reply shape of the
 * fixed-window and sliding-log twins.
 */
export function decodeMsReply(
  reply: number[],
  at: number,
  algorithm: Algorithm,
  cost: number,
): Decision {
  return {
    allowed: reply[at] === 1,
    limit: algorithm.limit,
    remaining: reply[at + 1]!,
    retryAfterMs: reply[at + 2]!,
    resetAfterMs: reply[at + 3]!,
    cost,
  };
}
