import { isGlideShaped } from '../clients/glide.js';
import { isIoredisShaped } from '../clients/ioredis.js';
import { type Timer, unrefTimeout } from '../runtime/timers.js';

/** What a subscriber connection tells its owner. */
export interface SubscriberEvents {
  /** A message on a subscribed channel. */
  message(channel: string, text: string): void;
  /**
   * The subscription is (again) in place after a (re)connect: messages published meanwhile
   * were lost, so the owner checks the versions.
   */
  resubscribed(): void;
  /** The connection was closed because the user's client ended (`quit()`, `disconnect()`). */
  ended?(): void;
}

/** One pub/sub connection of a store: channels added and dropped, closed with the store. */
export interface Subscriber {
  add(channel: string): Promise<void>;
  drop(channel: string): Promise<void>;
  close(): Promise<void>;
}

/** An ioredis / iovalkey `Redis` or `Cluster`, as far as pub/sub goes. */
interface IoredisLike {
  duplicate(): IoredisLike;
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  /** A `Redis`'s socket (a `Cluster` has none of its own). */
  readonly stream?: { unref?(): void };
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  disconnect(): void;
}

/** A node-redis 5/6 client, cluster or sentinel, as far as pub/sub goes. */
interface NodeRedisLike {
  duplicate(): NodeRedisLike;
  on(event: string, listener: (...args: never[]) => void): unknown;
  once(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  unref?(): void;
  connect(): Promise<unknown>;
  subscribe(
    channel: string,
    listener: (message: string, channel: string) => void,
  ): Promise<unknown>;
  unsubscribe(
    channel: string,
    listener?: (message: string, channel: string) => void,
  ): Promise<unknown>;
  destroy?(): void;
  disconnect?(): Promise<unknown>;
  readonly slots?: unknown;
  readonly masters?: unknown;
  readonly getMasterNode?: unknown;
}

/** A Valkey GLIDE 2.3+ `GlideClient` or `GlideClusterClient`, as far as pub/sub goes. */
interface GlideLike {
  /** The options the client was made with (private in GLIDE's types, a field at run time). */
  readonly config?: Record<string, unknown>;
  /** The client's class: `GlideClient` or `GlideClusterClient`. */
  readonly constructor: { createClient?(config: Record<string, unknown>): Promise<GlideLike> };
  /** The client's socket to GLIDE's core (private in GLIDE's types). */
  readonly socket?: { unref?(): void };
  /** Set by `close()` (protected in GLIDE's types, a field at run time). */
  readonly isClosed?: boolean;
  subscribe(channels: Iterable<string>, timeoutMs: number): Promise<void>;
  unsubscribe(channels: Iterable<string>, timeoutMs: number): Promise<void>;
  close(): void;
}

const ignore = () => undefined;

/**
 * The pub/sub connection for `client` (the user's, never put in subscriber mode itself):
 *
 * - ioredis / iovalkey `Redis` or `Cluster`: `client.duplicate()`, a connection of its own
 *   with the same options (it resubscribes by itself after a reconnect, `autoResubscribe`);
 * - node-redis `createClient()`: `client.duplicate()`, connected here (node-redis resubscribes
 *   after a reconnect);
 * - node-redis `createCluster()` / `createSentinel()`: their own `subscribe`, which already
 *   runs on a pub/sub connection of theirs (nothing to duplicate);
 * - Valkey GLIDE `GlideClient` / `GlideClusterClient` (no `duplicate()`): a second client of
 *   the same class and configuration, made with `pubsubSubscriptions` (GLIDE's callback) and
 *   subscribed with its `subscribe` (GLIDE 2.3+ resubscribes by itself after a reconnect).
 *
 * Errors of the duplicate are swallowed: the user's client reports the same outage, and a
 * missed message is caught up by the version check every `syncMs`. The duplicate never
 * keeps the process alive (its socket is unref'd: a process that quits its client exits as
 * before), and it is closed when the user's client ends (`quit()`, `disconnect()`).
 */
export function subscriberOf(client: object, events: SubscriberEvents): Subscriber {
  let shared = SHARED.get(client);
  if (shared === undefined) {
    const made = new SharedSubscriber((all) => connectionOf(client, all));
    SHARED.set(client, made);
    made.onIdle = () => {
      if (SHARED.get(client) === made) SHARED.delete(client);
    };
    shared = made;
  }
  return shared.join(events);
}

/** Each client's one pub/sub connection, shared by every store on the client. */
const SHARED = new WeakMap<object, SharedSubscriber>();

/**
 * One pub/sub connection for every store of a client (one connection, one `'end'` listener on
 * the client, however many stores): a channel is subscribed while any store listens on it,
 * each message goes to the stores on its channel, a reconnect to all of them. Made on the
 * first store's first channel, closed when the last store closes.
 */
class SharedSubscriber {
  readonly #make: (events: SubscriberEvents) => Subscriber;
  #connection: Subscriber | undefined;
  /** Channel → the subscription standing (or failed), and the stores on it. */
  readonly #channels = new Map<
    string,
    { standing: Promise<void>; owners: Set<SubscriberEvents> }
  >();
  readonly #owners = new Set<SubscriberEvents>();
  /** Called once no store is left, or the connection ended with the client. */
  onIdle: () => void = () => undefined;

  constructor(make: (events: SubscriberEvents) => Subscriber) {
    this.#make = make;
  }

  join(events: SubscriberEvents): Subscriber {
    this.#owners.add(events);
    const mine = new Set<string>();
    return {
      add: (channel) => {
        mine.add(channel);
        let entry = this.#channels.get(channel);
        if (entry === undefined) {
          this.#connection ??= this.#make({
            message: (ch, text) => {
              for (const owner of this.#channels.get(ch)?.owners ?? []) owner.message(ch, text);
            },
            resubscribed: () => {
              for (const owner of [...this.#owners]) owner.resubscribed();
            },
            // The client ended: a store made after it reconnects gets a new connection.
            ended: () => {
              this.#connection = undefined;
              this.#channels.clear();
              this.onIdle();
            },
          });
          entry = { standing: this.#connection.add(channel), owners: new Set() };
          this.#channels.set(channel, entry);
        }
        entry.owners.add(events);
        return entry.standing;
      },
      drop: (channel) => {
        mine.delete(channel);
        return this.#leave(channel, events);
      },
      close: async () => {
        if (!this.#owners.delete(events)) return;
        await Promise.all([...mine].map((channel) => this.#leave(channel, events)));
        mine.clear();
        if (this.#owners.size > 0) return;
        const connection = this.#connection;
        this.#connection = undefined;
        this.onIdle();
        await connection?.close();
      },
    };
  }

  #leave(channel: string, events: SubscriberEvents): Promise<void> {
    const entry = this.#channels.get(channel);
    if (entry === undefined || !entry.owners.delete(events) || entry.owners.size > 0) {
      return Promise.resolve();
    }
    this.#channels.delete(channel);
    return this.#connection?.drop(channel) ?? Promise.resolve();
  }
}

/** The pub/sub connection itself, by client kind. */
function connectionOf(client: object, events: SubscriberEvents): Subscriber {
  if (isGlideShaped(client)) return glideSubscriber(client as GlideLike, events);
  if (isIoredisShaped(client)) return ioredisSubscriber(client as IoredisLike, events);
  const c = client as Partial<NodeRedisLike> & { slots?: unknown; masters?: unknown };
  const pooled = ('slots' in c && 'masters' in c) || typeof c.getMasterNode === 'function';
  if (typeof c.duplicate !== 'function' && !pooled) {
    // A client without a pub/sub connection to give (@upstash/redis over HTTP): changes
    // arrive by the version check every `syncMs` alone.
    return {
      add: async () => undefined,
      drop: async () => undefined,
      close: async () => undefined,
    };
  }
  return nodeRedisSubscriber(client as NodeRedisLike, events);
}

function ioredisSubscriber(client: IoredisLike, events: SubscriberEvents): Subscriber {
  const connection = client.duplicate();
  let ready = 0;
  connection.on('error', ignore);
  // Each (re)connect has a new socket (a Cluster's subscriber lives in its nodes: the 'end'
  // of the user's client below closes it).
  connection.on('connect', () => connection.stream?.unref?.());
  const end = () => {
    connection.disconnect();
    events.ended?.();
  };
  client.once('end', end);
  connection.on('message', ((channel: string, text: string) => events.message(channel, text)) as (
    ...args: never[]
  ) => void);
  const channels = new Set<string>();
  // The first 'ready' is the first connect; each later one follows a lost connection.
  // ioredis sends its own SUBSCRIBE again just before 'ready' (autoResubscribe) but tells
  // nobody when it stands; the owner's catch-up must come after, or a change published in
  // between is neither read nor heard. So a SUBSCRIBE of ours follows on the same
  // connection (a no-op for Redis), and its reply is the signal.
  connection.on('ready', () => {
    if (++ready === 1) return;
    const back = () => events.resubscribed();
    if (channels.size === 0) back();
    else connection.subscribe(...channels).then(back, back);
  });
  return {
    add: (channel) => {
      channels.add(channel);
      return connection.subscribe(channel).then(ignore);
    },
    drop: (channel) => {
      channels.delete(channel);
      return connection.unsubscribe(channel).then(ignore);
    },
    close: async () => {
      client.off('end', end);
      connection.disconnect();
    },
  };
}

function nodeRedisSubscriber(client: NodeRedisLike, events: SubscriberEvents): Subscriber {
  const listener = (text: string, channel: string) => events.message(channel, text);
  const pooled =
    ('slots' in client && 'masters' in client) || typeof client.getMasterNode === 'function';
  if (pooled) {
    // A cluster or sentinel subscribes on a pub/sub connection of its own.
    return {
      add: (channel) => client.subscribe(channel, listener).then(ignore),
      drop: (channel) => client.unsubscribe(channel, listener).then(ignore),
      close: async () => undefined,
    };
  }
  const connection = client.duplicate();
  let ready = 0;
  connection.on('error', ignore);
  connection.on('ready', () => {
    if (++ready > 1) events.resubscribed();
  });
  const connected = connection.connect();
  connected.catch(ignore);
  connection.unref?.();
  let closed = false;
  const end = () => {
    closed = true;
    shut(connection);
    events.ended?.();
  };
  client.once('end', end);
  return {
    add: (channel) => connected.then(() => connection.subscribe(channel, listener)).then(ignore),
    drop: (channel) =>
      closed ? Promise.resolve() : connection.unsubscribe(channel, listener).then(ignore),
    async close() {
      client.off('end', end);
      if (closed) return;
      closed = true;
      await connected.catch(ignore);
      shut(connection);
    },
  };
}

/**
 * How long a GLIDE `subscribe` / `unsubscribe` waits for the server's confirmation, ms: GLIDE
 * keeps the subscription it was asked for and reconciles it by itself past that (a version
 * check every `syncMs` covers the meantime).
 */
const GLIDE_CONFIRM_MS = 5000;
/** How often a GLIDE pub/sub client checks that the user's client is still open, ms. */
const GLIDE_WATCH_MS = 1000;

/**
 * The pub/sub connection of a GLIDE client: a client of the same class and options (GLIDE has
 * no `duplicate()`), made with `pubsubSubscriptions` and no channel, whose callback hears the
 * messages; channels are added with GLIDE 2.3's dynamic `subscribe`. Its socket to GLIDE's
 * core is unref'd (it never keeps the process alive), and it is closed within
 * {@link GLIDE_WATCH_MS} of the user's client (`close()`). GLIDE tells nobody of a reconnect: a
 * change published meanwhile is caught up by the version check every `syncMs`. A client on
 * RESP2 cannot subscribe (GLIDE's pub/sub needs RESP3): the version check alone then.
 */
function glideSubscriber(client: GlideLike, events: SubscriberEvents): Subscriber {
  const make = client.constructor.createClient;
  const made: Promise<GlideLike> =
    typeof make === 'function'
      ? make.call(client.constructor, {
          ...client.config,
          pubsubSubscriptions: {
            channelsAndPatterns: {},
            callback: (msg: { channel: unknown; message: unknown }) =>
              events.message(String(msg.channel), String(msg.message)),
          },
        })
      : Promise.reject(new Error('sluice: the GLIDE client has no createClient'));
  made.then((connection) => connection.socket?.unref?.(), ignore);
  let closed = false;
  let watch: Timer | undefined;
  const shut = async () => {
    if (closed) return;
    closed = true;
    if (watch !== undefined) clearTimeout(watch);
    const connection = await made.catch(ignore);
    connection?.close();
  };
  // GLIDE emits no event when the user's client is closed: its `isClosed` is read every
  // GLIDE_WATCH_MS (an unref'd timer), and the pub/sub client goes with it.
  const check = () => {
    if (closed) return;
    if (client.isClosed === true) {
      shut().then(() => events.ended?.(), ignore);
      return;
    }
    watch = unrefTimeout(check, GLIDE_WATCH_MS);
  };
  check();
  return {
    add: (channel) => made.then((c) => c.subscribe([channel], GLIDE_CONFIRM_MS)),
    drop: (channel) =>
      closed ? Promise.resolve() : made.then((c) => c.unsubscribe([channel], GLIDE_CONFIRM_MS)),
    close: shut,
  };
}

/** Closes a node-redis connection at once (node-redis 5/6: `destroy()`). */
function shut(connection: NodeRedisLike): void {
  if (typeof connection.destroy === 'function') connection.destroy();
  else connection.disconnect?.().catch(ignore);
}
