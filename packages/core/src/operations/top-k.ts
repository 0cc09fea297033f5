/** One tracked id of {@link SpaceSaving}. */
interface Counter {
  id: string;
  count: number;
  error: number;
  /** Its index in the heap. */
  at: number;
}

/**
 * Space-Saving (Metwally, Agrawal, El Abbadi, "Efficient Computation of Frequent and Top-k
 * Elements in Data Streams", ICDT 2005): the `k` most frequent ids of a stream in bounded
 * memory. Each tracked id has a count that overestimates its true count by at most its
 * `error`; an id whose true count exceeds n/k is always tracked. The counters sit in a
 * min-heap: an update is one map lookup and O(log k) moves, allocating nothing for an id
 * already tracked.
 */
export class SpaceSaving {
  readonly k: number;
  readonly #byId = new Map<string, Counter>();
  readonly #heap: Counter[] = [];
  /** Updates seen (the stream's length). */
  total = 0;

  /** @param k - counters kept: an integer >= 1 (default 1024). */
  constructor(k = 1024) {
    this.k = k;
  }

  /** Counts one occurrence of `id`. */
  add(id: string): void {
    this.total++;
    const heap = this.#heap;
    const counter = this.#byId.get(id);
    if (counter !== undefined) {
      counter.count++;
      this.#down(counter);
      return;
    }
    if (heap.length < this.k) {
      const c: Counter = { id, count: 1, error: 0, at: heap.length };
      heap.push(c);
      this.#byId.set(id, c);
      this.#up(c);
      return;
    }
    // Full: the id takes the place of the least counted one (the heap's root).
    const min = heap[0]!;
    this.#byId.delete(min.id);
    min.id = id;
    min.error = min.count;
    min.count++;
    this.#byId.set(id, min);
    this.#down(min);
  }

  /** The `n` most counted ids, most counted first, with their counts and error bounds. */
  top(n: number): { id: string; count: number; error: number }[] {
    const rows = this.#heap.map(({ id, count, error }) => ({ id, count, error }));
    rows.sort((a, b) => b.count - a.count || a.error - b.error);
    return rows.slice(0, Math.max(0, n));
  }

  #up(c: Counter): void {
    const heap = this.#heap;
    let i = c.at;
    while (i > 0) {
      const parentAt = (i - 1) >> 1;
      const parent = heap[parentAt]!;
      if (parent.count <= c.count) break;
      heap[i] = parent;
      parent.at = i;
      i = parentAt;
    }
    heap[i] = c;
    c.at = i;
  }

  #down(c: Counter): void {
    const heap = this.#heap;
    const size = heap.length;
    let i = c.at;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let childAt = left;
      let child = heap[left]!;
      if (right < size && heap[right]!.count < child.count) {
        childAt = right;
        child = heap[right]!;
      }
      if (c.count <= child.count) break;
      heap[i] = child;
      child.at = i;
      i = childAt;
    }
    heap[i] = c;
    c.at = i;
  }
}
