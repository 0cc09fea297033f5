import type { Decision } from '@sluice/core';
import {
  type Algorithm,
  keyErrorReason,
  StoreKeyError,
  StoreTimeoutError,
  withChargeTime,
} from '@sluice/core/store';
import type { DeadlineQueue } from '../batching/deadline-queue.js';
import type { ServerClocks } from '../batching/server-clock.js';
import type { ScriptClient } from '../clients/client.js';
import { keySlot } from '../redis-key.js';
import { EXPIRED, LUA_PRELUDE, type LuaTwin } from './lua-common.js';
import { LuaScript } from './lua-script.js';

/**
 * Lua twin of core's `stepAtMost` (at-most.ts) over a twin's function `f`: the peek
 * (`f(key, now, 0)`), `n = min(max, its remaining)` (every twin admits a cost iff it is at
 * most its peek's remaining, its 2nd value), then `f(key, now, n)`; when `n` is 0, the
 * denial of one unit (`f(key, now, 1)`, which writes nothing). For a penalty twin
 * (`inner` given): while blocked, the blocked peek; otherwise a grant of 0 asks the inner
 * function for its one-unit denial, so it never starts a block (the TS
 * `PenaltyAlgorithm.stepAtMost`). Returns `n, <f's width values>`.
 *
 * KEYS[1] = the key. ARGV = now ('' for Redis TIME), max, ...params, deadline (Redis ms; ''
 * = none). Reply: `{n, values…, TIME ms}`; `{EXPIRED, TIME}` past the deadline (nothing
 * read or written); a function's error message where `n` would be (a key's unreadable
 * state, as the twin scripts answer it).
 */
export function atMostLua(twin: LuaTwin, inner?: LuaTwin): string {
  const ps = Array.from({ length: twin.params }, (_, i) => `p${i + 1}`).join(', ');
  const w = twin.width;
  let none = `return 0, ${twin.name}(key, now, 1, ${ps})`;
  if (inner !== undefined) {
    // The inner function's parameters follow blockMs, backoff, maxBlock.
    const innerPs = Array.from({ length: inner.params }, (_, i) => `p${i + 4}`).join(', ');
    none = `if r[${w - 1}] == 1 then return 0, unpack(r, 1, ${w}) end
  local q = {${inner.name}(key, now, 1, ${innerPs})}
  q[${w - 1}] = 0
  q[${w}] = 0
  return 0, unpack(q, 1, ${w})`;
  }
  const args = Array.from({ length: twin.params }, (_, i) => `tonumber(ARGV[${i + 3}])`).join(', ');
  const values = Array.from({ length: w }, (_, i) => `r${i + 1}`).join(', ');
  const zeros = Array.from({ length: w }, () => '0').join(', ');
  return `${LUA_PRELUDE}${twin.fn}
local function at_most(key, now, max, ${ps})
  local r = {${twin.name}(key, now, 0, ${ps})}
  local n = math.min(max, r[2])
  if n > 0 then return n, ${twin.name}(key, now, n, ${ps}) end
  ${none}
end
local clock = server_now()
local deadline = tonumber(ARGV[${twin.params + 3}])
if deadline ~= nil and clock >= deadline then return {${EXPIRED}, clock} end
local now = use_now(ARGV[1], clock)
local ok, n, ${values} = pcall(at_most, KEYS[1], now, tonumber(ARGV[2]), ${args})
if not ok then
  if type(n) == 'table' then n = n.err end
  return {tostring(n), ${zeros}, clock}
end
return {n, ${values}, clock}
`;
}

/** The at-most script of each twin, made when first asked for. */
const SCRIPTS = new WeakMap<LuaTwin, LuaScript>();

function scriptOf(twin: LuaTwin): LuaScript {
  let script = SCRIPTS.get(twin);
  if (script === undefined) {
    script = new LuaScript(atMostLua(twin, twin.inner));
    SCRIPTS.set(twin, script);
  }
  return script;
}

/** What an at-most call needs of its store. */
export interface AtMostContext {
  client: ScriptClient;
  cluster: boolean;
  deadlines: DeadlineQueue;
  clocks: ServerClocks;
}

/**
 * One partial grant in one `EVALSHA` of `twin`'s at-most script, within the store's
 * `timeoutMs` (the deadline goes to the script on Redis's clock: a late script grants
 * nothing). Not batched. The decision carries its charge time on Redis's clock when `now`
 * is `''`.
 *
 * @returns rejects with `StoreTimeoutError` past the deadline, with `StoreKeyError` when
 *   the key's state is unreadable by the twin.
 */
export function consumeAtMostOnRedis(
  context: AtMostContext,
  key: string,
  twin: LuaTwin,
  algorithm: Algorithm,
  request: { max: number; now: number | '' },
): Promise<Decision> {
  const { client, cluster, deadlines, clocks } = context;
  const node = cluster ? client.masterOf(keySlot(key)) : '';
  const deadline =
    node === undefined ? '' : clocks.deadlineOn(node, performance.now() + deadlines.timeoutMs);
  const { max, now } = request;
  const argv = [key, now, max, ...algorithm.params, deadline];
  return deadlines.wrap(scriptOf(twin).runMany(client, 1, argv, false)).then((raw) => {
    const reply = raw as (number | string)[];
    const clock = reply[reply.length - 1] as number;
    if (node !== undefined) clocks.sample(node, clock);
    if (reply[0] === EXPIRED) throw new StoreTimeoutError(deadlines.timeoutMs);
    if (typeof reply[0] !== 'number') {
      throw new StoreKeyError(algorithm.description, keyErrorReason(String(reply[0])));
    }
    const granted = reply[0];
    const decision = twin.decode(reply as number[], 1, algorithm, granted);
    return now === '' && granted > 0 ? withChargeTime(decision, clock) : decision;
  });
}
