// A Durable Object namespace for Node test processes whose objects are the real ones in a
// workerd serving fixtures/do-worker.ts (its /__do/<name> bridge).
import type { DurableObjectNamespaceLike } from '../src/types.js';

/**
 * A Durable Object namespace whose objects are the real ones in the workerd at `url`:
 * `get(id).fetch(…)` posts the body to the Worker's bridge for that object's name.
 */
export function bridgeNamespace(url: string): DurableObjectNamespaceLike {
  return {
    idFromName: (name) => ({ name }),
    get: (id) => ({
      fetch: (_input, init) =>
        fetch(`${url}/__do/${encodeURIComponent((id as { name: string }).name)}`, init),
    }),
  };
}
