import type { Decision } from '@sluice/core';
import type { StoreReservation } from '@sluice/core/store';
import {
  type Algorithm,
  GcraAlgorithm,
  StoreTimeoutError,
  withChargeTime,
} from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ServerClocks } from '../batching/server-clock.js';
import type { ScriptClient } from '../clients/client.js';
import { keySlot } from '../redis-key.js';
import { GCRA_STATE } from './gcra.lua.js';
import { EXPIRED, LUA_PRELUDE } from './lua-common.js';
import { LuaScript } from './lua-script.js';

/**
 * Lua twin of `GcraAlgorithm.reservation` (@sluice/core gcra.ts): books `cost` units at
 * their future slot, TAT′ = max(TAT, now) + cost·T, when the wait TAT′ − τ − now is at most
 * `maxWait` ms (and `cost·T <= τ`, `cost > 0`), reading and writing the TAT as the GCRA twin
 * does (`gcra_ahead`, `gcra_set`, gcra.lua.ts). Returns `booked (0|1), ahead` (the TAT's
 * lead over now before the request, in ticks); the client rebuilds the decision and the
 * delay from `ahead` with the engine's own arithmetic.
 */
const GCRA_RESERVE_FN = `${GCRA_STATE}local function gcra_reserve(key, now, cost, maxWait, interval, perMs, burst)
  local tolerance = burst * interval
  local ahead, held = gcra_ahead(key, now, perMs)
  local increment = cost * interval
  local nxt = ahead + increment
  if cost > 0 and increment <= tolerance and nxt - tolerance <= maxWait * perMs then
    gcra_set(key, now, nxt, perMs, held)
    return 1, ahead
  end
  return 0, ahead
end
`;

/**
 * KEYS[1] = the key. ARGV = now ('' for Redis TIME), cost, maxWait (ms), intervalTicks,
 * ticksPerMs, burst, deadline (Redis ms; '' = none). Reply: `{booked, ahead, TIME ms}`, or
 * `{EXPIRED, TIME}` past the deadline: nothing read or written, so a call its caller gave
 * up on books nothing.
 */
export const GCRA_RESERVE_LUA = new LuaScript(`${LUA_PRELUDE}${GCRA_RESERVE_FN}
local clock = server_now()
local deadline = tonumber(ARGV[7])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local now = use_now(ARGV[1], clock)
local booked, ahead = gcra_reserve(KEYS[1], now, tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]))
return {booked, ahead, clock}
`);

/**
 * Several keys' reservations all-or-nothing (`Store.reserveAll`): KEYS = the keys (one
 * Cluster slot). ARGV = now ('' for Redis TIME), maxWait (ms), deadline ('' = none), then per
 * key: cost, intervalTicks, ticksPerMs, burst. Reads every key's TAT lead first (as
 * `gcra_reserve`); only when each books within maxWait (a cost 0 part, a peek, always
 * does) does it write each (`gcra_set`).
 * Reply: `{booked (0|1), TIME ms, ahead1, ahead2, …}`, or `{EXPIRED, TIME}` past the deadline.
 */
export const GCRA_RESERVE_ALL_LUA = new LuaScript(`${LUA_PRELUDE}${GCRA_STATE}
local clock = server_now()
local deadline = tonumber(ARGV[3])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local now = use_now(ARGV[1], clock)
local maxWait = tonumber(ARGV[2])
local reply = {1, clock}
local held = {}
for i = 1, #KEYS do
  local b = 3 + (i - 1) * 4
  local cost, interval, perMs, burst = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4])
  local ahead, h = gcra_ahead(KEYS[i], now, perMs)
  reply[i + 2] = ahead
  held[i] = h
  local increment = cost * interval
  if cost > 0 and not (increment <= burst * interval and ahead + increment - burst * interval <= maxWait * perMs) then reply[1] = 0 end
end
if reply[1] == 1 then
  for i = 1, #KEYS do
    local b = 3 + (i - 1) * 4
    local cost, interval, perMs = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
    if cost > 0 then gcra_set(KEYS[i], now, reply[i + 2] + cost * interval, perMs, held[i]) end
  end
end
return reply
`);

/** What a reservation call needs of its store. */
export interface ReserveContext {
  /** The store's client, resolved once. */
  client: ScriptClient;
  cluster: boolean;
  deadlines: DeadlineQueue;
  clocks: ServerClocks;
}

/**
 * One reservation in one `EVALSHA` of {@link GCRA_RESERVE_LUA}, within the store's
 * `timeoutMs` (the deadline goes to the script on Redis's clock, so a late script books
 * nothing). The decision carries its charge time on Redis's clock when `now` is `''`.
 *
 * @throws `TypeError` (as a rejection) for an algorithm that is not GCRA (a window has no
 *   future slot). Rejects with `StoreTimeoutError` past the deadline.
 */
export function reserveOnRedis(
  context: ReserveContext,
  key: string,
  algorithm: Algorithm,
  request: { cost: number; now: number | ''; maxWaitMs: number },
): Promise<{ decision: Decision; delayMs: number }> {
  if (!(algorithm instanceof GcraAlgorithm)) {
    return Promise.reject(
      new TypeError(`sluice: algorithm ${algorithm.description} has no future slot to reserve`),
    );
  }
  const { client, cluster, deadlines, clocks } = context;
  const node = cluster ? client.masterOf(keySlot(key)) : '';
  const deadline =
    node === undefined ? '' : clocks.deadlineOn(node, performance.now() + deadlines.timeoutMs);
  const { cost, now, maxWaitMs } = request;
  const args = [now, cost, maxWaitMs, ...algorithm.params, deadline];
  return deadlines.wrap(GCRA_RESERVE_LUA.runMany(client, 1, [key, ...args], false)).then((raw) => {
    const reply = raw as number[];
    if (node !== undefined) clocks.sample(node, reply[reply.length - 1]);
    if (reply[0] === EXPIRED) throw new StoreTimeoutError(deadlines.timeoutMs);
    const booked = algorithm.reservation(reply[1]!, cost, maxWaitMs);
    if (booked.booked !== (reply[0] === 1)) {
      throw new Error('sluice: the reservation twin disagrees with GcraAlgorithm.reservation');
    }
    const decision = now === '' ? withChargeTime(booked.decision, reply[2]!) : booked.decision;
    return { decision, delayMs: booked.delayMs };
  });
}

/** One part of {@link reserveAllOnRedis}: its Redis key, algorithm and cost. */
export interface ReservePart {
  key: string;
  algorithm: Algorithm;
  cost: number;
}

/**
 * Several reservations all-or-nothing in one `EVALSHA` of {@link GCRA_RESERVE_ALL_LUA}
 * (`Store.reserveAll`): every part booked, or none (the ones that would book then report
 * their peek with their cost, the others their denial).
 *
 * @throws `TypeError` (as a rejection) for an algorithm that is not GCRA, for one key asked
 *   for twice, or on a Cluster for keys in different slots (one script runs on one node: the
 *   limits of a queued route must share a slot there). Rejects with `StoreTimeoutError` past
 *   the deadline.
 */
export function reserveAllOnRedis(
  context: ReserveContext,
  parts: readonly ReservePart[],
  request: { now: number | ''; maxWaitMs: number },
): Promise<StoreReservation[]> {
  const args: (string | number)[] = [];
  const gcras: GcraAlgorithm[] = [];
  for (const p of parts) {
    if (!(p.algorithm instanceof GcraAlgorithm)) {
      return Promise.reject(
        new TypeError(`sluice: algorithm ${p.algorithm.description} has no future slot to reserve`),
      );
    }
    gcras.push(p.algorithm);
    args.push(p.cost, ...p.algorithm.params);
  }
  const keys = parts.map((p) => p.key);
  const { client, cluster, deadlines, clocks } = context;
  const slot = keySlot(keys[0]!);
  if (new Set(keys).size !== keys.length || (cluster && keys.some((k) => keySlot(k) !== slot))) {
    return Promise.reject(
      new TypeError(
        'sluice: reserveAll needs distinct keys in one Redis Cluster slot (a queued route with several limits on a Cluster)',
      ),
    );
  }
  const node = cluster ? client.masterOf(slot) : '';
  const deadline =
    node === undefined ? '' : clocks.deadlineOn(node, performance.now() + deadlines.timeoutMs);
  const { now, maxWaitMs } = request;
  const argv = [...keys, now, maxWaitMs, deadline, ...args];
  return deadlines
    .wrap(GCRA_RESERVE_ALL_LUA.runMany(client, keys.length, argv, false))
    .then((raw) => {
      const reply = raw as number[];
      if (node !== undefined) clocks.sample(node, reply[1]);
      if (reply[0] === EXPIRED) throw new StoreTimeoutError(deadlines.timeoutMs);
      const all = reply[0] === 1;
      return parts.map((p, i) => {
        const ahead = reply[i + 2]!;
        const booked = gcras[i]!.reservation(ahead, p.cost, maxWaitMs);
        // cost 0: a peek, booked by nothing, in the way of nothing
        if (p.cost === 0) return { decision: gcras[i]!.decide(ahead, 0), delayMs: 0 };
        if (all && !booked.booked) {
          throw new Error('sluice: the reservation twin disagrees with GcraAlgorithm.reservation');
        }
        if (all) {
          const decision =
            now === '' ? withChargeTime(booked.decision, reply[1]!) : booked.decision;
          return { decision, delayMs: booked.delayMs };
        }
        const decision = booked.booked
          ? { ...gcras[i]!.decide(ahead, 0), cost: p.cost }
          : booked.decision;
        return { decision, delayMs: 0 };
      });
    });
}
