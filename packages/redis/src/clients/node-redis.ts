import { SluiceConfigError } from '@sluice/core';
import { DOWN_ERRORS, type ScriptClient } from './script-client.js';

/** The parts of a node-redis 5/6 client, cluster or sentinel the store uses. */
interface NodeRedis {
  readonly isOpen: boolean;
  /** Undefined on a node-redis 5 cluster. */
  readonly isReady?: boolean;
  sendCommand(...args: unknown[]): Promise<unknown>;
  /** Cluster only: each slot's master (`address` is `host:port`). */
  readonly slots?: ({ master?: { address?: string } } | undefined)[];
  readonly masters?: unknown;
  /**
   * Cluster only: its slot table, whose `rediscover(startWith)` reloads the topology from
   * the node `startWith` (public in node-redis 5 and 6's types).
   */
  readonly _slots?: { rediscover?(startWith: unknown): Promise<void> };
  /** Sentinel only. */
  getMasterNode?: unknown;
}

/**
 * Whether `value` has the shape of a node-redis 5/6 client (the `redis` package's
 * `createClient()`, `createCluster()` or `createSentinel()`): `sendCommand`, `evalSha` and
 * the `isOpen` getter (a node-redis 5 cluster has no `isReady`).
 */
export function isNodeRedisShaped(value: object): boolean {
  const v = value as Record<string, unknown>;
  return (
    typeof v.sendCommand === 'function' && typeof v.evalSha === 'function' && 'isOpen' in value
  );
}

/**
 * Refuses a node-redis client that is not open (`connect()` never called, or `quit()` /
 * `close()` already called): node-redis sends nothing before `connect()`, so every decision
 * would fail and be decided by the `onStoreError` policy, in process: with `'insurance'`
 * each server of a fleet would limit on its own memory, the limit multiplied by the number
 * of servers, after one warning. A client whose `connect()` was called and not yet
 * awaited is open (connecting) and is taken.
 *
 * @throws {@link SluiceConfigError} naming `client`, saying to `await client.connect()` first.
 */
export function checkNodeRedisOpen(client: unknown, kind: string): void {
  if (client === null || typeof client !== 'object' || !isNodeRedisShaped(client)) return;
  if ((client as NodeRedis).isOpen) return;
  throw new SluiceConfigError('client', client, '', {
    message:
      `sluice: invalid option "client": ${kind} that is not connected: node-redis sends ` +
      'nothing before connect(), so every decision would fall back to onStoreError (with ' +
      "'insurance', each process limiting on its own memory). Call `await client.connect()` " +
      'before `new RedisStore({ client })`',
  });
}

/** node-redis takes strings (or Buffers) only: numbers are written as text. */
function strings(head: string[], argv: (string | number)[]): string[] {
  const args = head;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    args.push(typeof a === 'string' ? a : String(a));
  }
  return args;
}

/**
 * The command options of a call made while the client is ready: no command timeout.
 * node-redis times a command out only while it waits to be written (its offline queue), and
 * a ready client writes it at the next `setImmediate`; the store's `timeoutMs` bounds every
 * call either way. node-redis 6 arms one by default (5 s): an `AbortSignal.timeout` and its
 * listener per command. Every other option (`typeMapping`, an `abortSignal`) stays the
 * client's.
 * perf: with the timeout, Node's CPU per script call at one call in flight was 22-28 µs
 * against ioredis's 15-16, most of the difference in creating the signal and in garbage
 * collection (its timers are weakly held); without it, the same as ioredis.
 */
const READY_OPTIONS = Object.freeze({ timeout: 0 });

/**
 * The {@link ScriptClient} of a node-redis client, cluster or sentinel. Scripts go through
 * `sendCommand` (node-redis writes every command of one tick in one socket write, so the
 * store's batches are not held back); a cluster routes a call by its first key (node-redis
 * follows `MOVED` / `ASK`), a sentinel sends to the current master. Replies are the same
 * on RESP2 and RESP3 for our scripts (integers, bulk strings, arrays). A call made while
 * the client is not ready (connecting) keeps the client's own command timeout.
 */
export function nodeRedisClient(client: object): ScriptClient {
  const c = client as NodeRedis;
  const cluster = 'slots' in client && 'masters' in client;
  const sentinel = !cluster && typeof c.getMasterNode === 'function';
  // sendCommand's arguments differ: (args) on a client, (firstKey, isReadonly, args) on a
  // cluster, (isReadonly, args) on a sentinel.
  // A node-redis 5 cluster has no `isReady`: open is ready (connect() awaits discovery).
  const options = () => (c.isReady === false ? undefined : READY_OPTIONS);
  const send: (firstKey: string | undefined, args: string[]) => Promise<unknown> = cluster
    ? (firstKey, args) => c.sendCommand(firstKey, false, args, options())
    : sentinel
      ? (_, args) => c.sendCommand(false, args, options())
      : (_, args) => c.sendCommand(args, options());
  /** Whether the client has been ready once: not ready after that is a lost connection. */
  let wasReady = false;
  return {
    kind: cluster
      ? 'a node-redis Cluster client'
      : sentinel
        ? 'a node-redis Sentinel client'
        : 'a node-redis client',
    cluster,
    evalsha: (sha, numKeys, argv) =>
      send(
        numKeys > 0 ? String(argv[0]) : undefined,
        strings(['EVALSHA', sha, String(numKeys)], argv),
      ),
    eval: (source, numKeys, argv) =>
      send(
        numKeys > 0 ? String(argv[0]) : undefined,
        strings(['EVAL', source, String(numKeys)], argv),
      ),
    del: (key) => send(key, ['DEL', key]),
    hget: (key, field) =>
      send(key, ['HGET', key, field]).then((v) =>
        v === null || v === undefined ? null : String(v),
      ),
    hvals: (key) => send(key, ['HVALS', key]).then((v) => (v as unknown[]).map(String)),
    info: () => send(undefined, ['INFO', 'server']).then(String),
    masterOf: cluster ? (slot) => c.slots?.[slot]?.master?.address : () => '',
    lost: cluster ? topologyWatch(c) : undefined,
    down() {
      if (!c.isOpen) return DOWN_ERRORS.close;
      if (c.isReady !== false) {
        wasReady = true;
        return undefined;
      }
      // Open but not ready: connecting for the first time (calls wait for it), or
      // reconnecting after a lost connection (calls fail at once).
      return wasReady ? DOWN_ERRORS.reconnecting : undefined;
    },
  };
}

/** A master of a node-redis cluster as its `masters` list has it. */
interface ClusterNode {
  address?: string;
  client?: { isReady?: boolean };
}

/** How often the topology is reloaded while a Cluster node fails, ms. */
const WATCH_EVERY_MS = 250;
/** How long after the last failed call it is reloaded, ms. */
const WATCH_FOR_MS = 3000;

/**
 * `ScriptClient.lost` of a node-redis cluster: while calls to a node fail or time out, its
 * topology is reloaded from a healthy master every {@link WATCH_EVERY_MS}, so the client
 * follows a replica's promotion within that. node-redis reloads it by itself only on a
 * `MOVED` (which a dead master never answers) and, in node-redis 6, 5 s after a node starts
 * reconnecting (its `topologyRefreshOnReconnectionAttemptStrategy`): 3 to 6 s of requests
 * decided by the failure policy after the promotion. ioredis refreshes its slots on its own.
 */
function topologyWatch(c: NodeRedis): (server?: string) => void {
  let until = 0;
  let failed: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    timer = undefined;
    if (performance.now() > until || !c.isOpen) return;
    const masters = (Array.isArray(c.masters) ? c.masters : []) as ClusterNode[];
    const healthy = masters.find((m) => m.address !== failed && m.client?.isReady === true);
    if (healthy?.client !== undefined) {
      c._slots?.rediscover?.(healthy.client)?.catch(() => undefined);
    }
    timer = setTimeout(tick, WATCH_EVERY_MS);
    timer.unref();
  };
  return (server) => {
    until = performance.now() + WATCH_FOR_MS;
    if (server !== undefined) failed = server;
    if (timer === undefined) tick();
  };
}
