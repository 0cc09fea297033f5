// Durable Objects in the test process: SluiceDurableObject on a Map for storage, and a
// namespace whose stubs call them directly (what workerd does, without workerd).
import type { DurableObjectNamespaceLike } from '../src/index.js';
import { SluiceDurableObject } from '../src/index.js';

/** A Durable Object's storage in a Map, with its alarm. */
export function memoryStorage() {
  const data = new Map<string, unknown>();
  let alarm: number | null = null;
  return {
    data,
    alarm: () => alarm,
    storage: {
      get: async (keys: string[]) =>
        new Map(keys.filter((k) => data.has(k)).map((k) => [k, data.get(k)])),
      put: async (entries: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(entries)) data.set(k, v);
      },
      delete: async (keys: string[]) => keys.filter((k) => data.delete(k)).length,
      list: async ({
        start = '',
        limit = Infinity,
        prefix = '',
      }: {
        start?: string;
        limit?: number;
        prefix?: string;
      } = {}) =>
        new Map(
          [...data]
            .filter(([k]) => k >= start && k.startsWith(prefix))
            .sort()
            .slice(0, limit),
        ),
      getAlarm: async () => alarm,
      setAlarm: async (t: number) => {
        alarm = t;
      },
    },
  };
}

/** A namespace of in-process objects, one per name; `fetches` lists the name of each fetch. */
export function inProcessNamespace(): { namespace: DurableObjectNamespaceLike; fetches: string[] } {
  const objects = new Map<string, SluiceDurableObject>();
  const fetches: string[] = [];
  const namespace: DurableObjectNamespaceLike = {
    idFromName: (name) => ({ name }),
    get: (id) => {
      const name = (id as { name: string }).name;
      let object = objects.get(name);
      if (object === undefined) {
        object = new SluiceDurableObject({ storage: memoryStorage().storage });
        objects.set(name, object);
      }
      const o = object;
      return {
        fetch: async (url, init) => {
          fetches.push(name);
          return o.fetch(new Request(url, init));
        },
      };
    },
  };
  return { namespace, fetches };
}
