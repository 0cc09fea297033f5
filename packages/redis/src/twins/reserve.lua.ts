import type { Decision } from '@sluice/core';
import { type Algorithm, GcraAlgorithm, withChargeTime } from '@sluice/core/store';
import { type DeadlineQueue, StoreTimeoutError } from '../batching/deadline-queue.js';
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
