import { keySlot } from '../redis-key.js';
import { GlideProbe } from './glide-probe.js';
import { DOWN_ERRORS, evalFirst, type ScriptClient } from './script-client.js';

/** The parts of a Valkey GLIDE 2.x `GlideClient` or `GlideClusterClient` the store uses. */
interface Glide {
  customCommand(args: string[], options?: { route?: string; decoder?: unknown }): Promise<unknown>;
  /** Set by `close()` (protected in GLIDE's types, a plain field at run time). */
  readonly isClosed?: boolean;
  /** Cluster only. */
  ssubscribe?: unknown;
}

/**
 * Whether `value` has the shape of a Valkey GLIDE 2.x client (`@valkey/valkey-glide`'s
 * `GlideClient` or `GlideClusterClient`): `customCommand` and `invokeScript`, and neither
 * ioredis's `defineCommand` nor node-redis's `sendCommand`.
 */
export function isGlideShaped(value: object): boolean {
  const v = value as Record<string, unknown>;
  return (
    typeof v.customCommand === 'function' &&
    typeof v.invokeScript === 'function' &&
    typeof v.defineCommand !== 'function' &&
    typeof v.sendCommand !== 'function'
  );
}

/** Whether a GLIDE client is a `GlideClusterClient` (sharded pub/sub is Cluster only). */
export function isGlideCluster(value: object): boolean {
  return typeof (value as Glide).ssubscribe === 'function';
}

/** The decoder `customCommand` takes for Buffers (`Decoder.Bytes`, an enum value of GLIDE's). */
const BYTES = 0;

/** GLIDE takes strings (or Buffers) only: numbers are written as text. */
function strings(head: string[], argv: (string | number)[]): string[] {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    head.push(typeof a === 'string' ? a : String(a));
  }
  return head;
}

/** What GLIDE's core puts before a server's error (`RequestError`). */
const SERVER_SAID = 'An error was signalled by the server: - ';

/** The error codes of the kinds GLIDE's core (redis-rs) names instead of the server's code. */
const CODES: Record<string, string> = {
  NoScriptError: 'NOSCRIPT',
  ResponseError: 'ERR',
  BusyLoadingError: 'LOADING',
  ReadOnly: 'READONLY',
  ReadOnlyError: 'READONLY',
  ExecAbortError: 'EXECABORT',
  TryAgain: 'TRYAGAIN',
  ClusterDown: 'CLUSTERDOWN',
  CrossSlot: 'CROSSSLOT',
  MasterDown: 'MASTERDOWN',
  NotBusy: 'NOTBUSY',
  NoPermError: 'NOPERM',
};

/**
 * A server error as Redis words it (`NOSCRIPT No matching script...`, `ERR ...`,
 * `WRONGTYPE ...`): GLIDE's core answers `An error was signalled by the server: -
 * NoScriptError: No matching script...` for the codes it knows and `WRONGTYPE: ...` for the
 * others, and the store reads the code (the `EVAL` fallback on `NOSCRIPT`, an `INFO` the
 * server refuses with `NOPERM`). Any other error (a timeout, a closed client) stays as GLIDE
 * made it.
 */
function serverError(error: unknown): never {
  if (!(error instanceof Error)) throw error;
  const said = error.message.startsWith(SERVER_SAID);
  const text = said ? error.message.slice(SERVER_SAID.length) : error.message;
  const match = /^([A-Za-z]+): ([\s\S]*)$/.exec(text);
  const code =
    match === null
      ? undefined
      : said
        ? CODES[match[1]!]
        : /^[A-Z]{2,}$/.test(match[1]!)
          ? match[1]
          : undefined;
  if (!said && code === undefined) throw error;
  const clean = new Error(code === undefined ? text : `${code} ${match![2]}`);
  clean.name = error.name;
  throw clean;
}

/**
 * The {@link ScriptClient} of a Valkey GLIDE 2.x client (`GlideClient` or
 * `GlideClusterClient`). Scripts go as `EVALSHA` / `EVAL` through `customCommand` (GLIDE's
 * `invokeScript` needs its `Script` class, which the store would have to import): GLIDE
 * multiplexes every call on one connection per node and writes a turn's calls together, so
 * the store's batches are not held back; a `GlideClusterClient` routes `EVALSHA` by its first
 * key and follows `MOVED` / `ASK` and failovers by itself. A script's first run is an `EVAL`
 * ({@link evalFirst}: GLIDE's core logs every error reply). `INFO` goes to one node. The
 * masters of the slots (the per-node breakers) are read with `CLUSTER SLOTS`, once and again
 * after a failed call. GLIDE tells no connection state (it reconnects by itself, and holds a
 * call meanwhile up to its `requestTimeout`): on a `GlideClient`, after a call failed or
 * timed out the server is `PING`ed ({@link GlideProbe}) and `down` fails calls at once until
 * one answers; on a `GlideClusterClient`, `down` reports a closed client only (the limiter's
 * per-node breakers stand for it).
 */
export function glideClient(client: object): ScriptClient {
  const c = client as Glide;
  const cluster = isGlideCluster(client);
  const send = (args: string[], raw = false): Promise<unknown> =>
    c.customCommand(args, raw ? { decoder: BYTES } : undefined).catch(serverError);
  const slots = cluster ? slotTable(c) : undefined;
  const probe = cluster ? undefined : new GlideProbe(c);
  const evalsha: ScriptClient['evalsha'] = (sha, numKeys, argv, raw) =>
    send(strings(['EVALSHA', sha, String(numKeys)], argv), raw);
  const evalSource: ScriptClient['eval'] = (source, numKeys, argv) =>
    send(strings(['EVAL', source, String(numKeys)], argv));
  return {
    kind: cluster ? 'a Valkey GLIDE GlideClusterClient' : 'a Valkey GLIDE GlideClient',
    cluster,
    evalsha,
    eval: evalSource,
    run: evalFirst(
      evalsha,
      evalSource,
      slots && ((numKeys, argv) => (numKeys > 0 ? slots.masterOf(keySlot(String(argv[0]))) : '')),
    ),
    del: (key) => send(['DEL', key]),
    hget: (key, field) =>
      send(['HGET', key, field]).then((v) => (v === null || v === undefined ? null : String(v))),
    hvals: (key) => send(['HVALS', key]).then((v) => (v as unknown[]).map(String)),
    info: () =>
      c
        .customCommand(['INFO', 'server'], cluster ? { route: 'randomNode' } : undefined)
        .then(String, serverError),
    masterOf: slots === undefined ? () => '' : (slot) => slots.masterOf(slot),
    lost: slots === undefined ? () => probe!.lost() : () => slots.reload(),
    down:
      probe === undefined
        ? () => (c.isClosed === true ? DOWN_ERRORS.close : undefined)
        : () => probe.down(),
  };
}

/** How long after a reload another may start, ms (a failing node fails many calls). */
const RELOAD_EVERY_MS = 250;

/**
 * Each slot's master (`host:port`) on a Cluster, from `CLUSTER SLOTS` of one node: loaded on
 * the first question, again (at most every {@link RELOAD_EVERY_MS}) when calls to a node
 * fail, so the per-node breakers follow a failover. GLIDE keeps its own topology and does not
 * show it.
 */
function slotTable(c: Glide): { masterOf(slot: number): string | undefined; reload(): void } {
  let masters: (string | undefined)[] | undefined;
  let loading = false;
  let loadedAt = Number.NEGATIVE_INFINITY;
  const reload = () => {
    const now = performance.now();
    if (loading || now - loadedAt < RELOAD_EVERY_MS) return;
    loading = true;
    loadedAt = now;
    c.customCommand(['CLUSTER', 'SLOTS'], { route: 'randomNode' }).then(
      (reply) => {
        loading = false;
        const table: (string | undefined)[] = [];
        for (const range of Array.isArray(reply) ? reply : []) {
          const [from, to, master] = range as [number, number, [unknown, unknown] | undefined];
          if (!Array.isArray(master)) continue;
          const address = `${String(master[0])}:${String(master[1])}`;
          for (let slot = Number(from); slot <= Number(to); slot++) table[slot] = address;
        }
        masters = table;
      },
      () => {
        loading = false;
      },
    );
  };
  return {
    masterOf(slot) {
      if (masters === undefined) reload();
      return masters?.[slot];
    },
    reload,
  };
}
