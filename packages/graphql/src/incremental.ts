/**
 * Incremental delivery (`@defer` / `@stream`): an operation's result arrives as an initial
 * payload and later ones. Its actual cost is known only once the last has been delivered
 * (or the stream was cancelled), so the reservation is settled then, on what the client
 * received.
 */

type PathSegment = string | number;

/** One entry of a later payload's `incremental`: deferred `data` or streamed `items`. */
interface IncrementalEntry {
  data?: unknown;
  /** Streamed items (Apollo types it loosely, with null: only an array is merged). */
  items?: unknown;
  /** Where it goes (graphql-tools / Yoga, graphql-js 17.0.0-alpha.2). */
  path?: readonly PathSegment[];
  /** graphql-js 17.0.0-alpha.3+: the id of a `pending` entry, and a path below it. */
  id?: string;
  subPath?: readonly PathSegment[];
}

/** An initial or later payload, in either incremental format. */
export interface IncrementalPayload {
  data?: unknown;
  incremental?: readonly IncrementalEntry[];
  pending?: readonly { id: string; path: readonly PathSegment[] }[];
  hasNext?: boolean;
  extensions?: Record<string, unknown>;
}

type Container = Record<PathSegment, unknown>;

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/**
 * The result data delivered so far, payloads merged where their paths say (deferred objects
 * deep-merged, streamed items at their indexes). Copy on write: a payload object is never
 * changed, only the containers this merge made.
 */
export class DeliveredData {
  /** The merged `data` (`undefined` before the first payload with data). */
  data: unknown = undefined;
  readonly #owned = new WeakSet<object>();
  readonly #pending = new Map<string, readonly PathSegment[]>();

  /** Merges one payload. */
  add(payload: IncrementalPayload): void {
    if (payload.data !== undefined) this.data = this.#merge(this.data, payload.data);
    for (const p of payload.pending ?? []) this.#pending.set(p.id, p.path);
    for (const entry of payload.incremental ?? []) {
      const base = entry.id !== undefined ? this.#pending.get(entry.id) : entry.path;
      if (base === undefined) continue;
      const path = entry.subPath === undefined ? base : [...base, ...entry.subPath];
      const items = Array.isArray(entry.items) ? (entry.items as readonly unknown[]) : undefined;
      if (items !== undefined) {
        // Streamed items: the path ends at the first item's index (alpha.3+: the list itself).
        const last = path[path.length - 1];
        const start = typeof last === 'number' && entry.id === undefined ? last : undefined;
        const listPath = start === undefined ? path : path.slice(0, -1);
        this.data = this.#at(this.data, listPath, 0, (list) => {
          const l = (
            Array.isArray(list) ? this.#own(list as unknown as Container) : this.#fresh([])
          ) as unknown[];
          let i = start ?? l.length;
          for (const item of items) {
            l[i] = this.#merge(l[i], item);
            i++;
          }
          return l;
        });
      } else if (entry.data !== undefined) {
        this.data = this.#at(this.data, path, 0, (v) => this.#merge(v, entry.data));
      }
    }
  }

  #fresh<T extends object>(v: T): T {
    this.#owned.add(v);
    return v;
  }

  #own(v: Container): Container {
    if (this.#owned.has(v)) return v;
    return this.#fresh(Array.isArray(v) ? [...v] : { ...v }) as Container;
  }

  #merge(target: unknown, source: unknown): unknown {
    if (source === undefined) return target;
    if (!isContainer(source) || !isContainer(target)) return source;
    if (Array.isArray(source) !== Array.isArray(target)) return source;
    const t = this.#own(target);
    for (const k of Object.keys(source)) t[k] = this.#merge(t[k], (source as Container)[k]);
    return t;
  }

  #at(
    node: unknown,
    path: readonly PathSegment[],
    i: number,
    apply: (v: unknown) => unknown,
  ): unknown {
    if (i === path.length) return apply(node);
    const seg = path[i]!;
    const c = isContainer(node) ? this.#own(node) : this.#fresh(typeof seg === 'number' ? [] : {});
    (c as Container)[seg] = this.#at((c as Container)[seg], path, i + 1, apply);
    return c;
  }
}

/**
 * `source` as delivered, calling `settle` exactly once: before yielding the last payload
 * (`hasNext: false`, passed as `last` so `extensions.cost` can go on it), or when the source
 * ends, fails, or the consumer stops (`return()`: a cancelled request). `settle` sees the
 * data delivered until then (with `initial`, a payload delivered apart: Apollo's); it must
 * not reject.
 */
export function settledStream<T extends IncrementalPayload>(
  source: AsyncIterable<T>,
  settle: (delivered: DeliveredData, last: T | undefined) => void | Promise<void>,
  initial?: IncrementalPayload,
): AsyncIterableIterator<T> {
  const delivered = new DeliveredData();
  if (initial !== undefined) delivered.add(initial);
  let iterator: AsyncIterator<T> | undefined;
  let settled = false;
  const end = async (last?: T) => {
    if (settled) return;
    settled = true;
    await settle(delivered, last);
  };
  const it = () => (iterator ??= source[Symbol.asyncIterator]());
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      let r: IteratorResult<T>;
      try {
        r = await it().next();
      } catch (error) {
        await end();
        throw error;
      }
      if (r.done) await end();
      else {
        delivered.add(r.value);
        if (r.value.hasNext === false) await end(r.value);
      }
      return r;
    },
    async return(value?: unknown) {
      await end();
      const r = await iterator?.return?.(value);
      return r ?? { done: true, value: value as T };
    },
    async throw(error?: unknown) {
      await end();
      if (iterator?.throw !== undefined) return iterator.throw(error);
      throw error;
    },
  };
}
