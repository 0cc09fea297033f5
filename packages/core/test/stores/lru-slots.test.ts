// LruSlots' hash table (the memory store's key lookup): every key held is found in its key
// space and no other, through inserts, evictions, removals and the table's growth, as a
// Map per key space finds it.

import { seededRandom } from '@sluice/test-kit';
import { LruSlots } from '../../src/stores/lru-slots.js';

describe('LruSlots finds keys as a Map per key space does', () => {
  it('the same text in two key spaces is two keys; a removed key is gone', () => {
    const slots = new LruSlots(
      8,
      () => {},
      () => {},
    );
    const a = slots.addGroup();
    const b = slots.addGroup();
    const inA = slots.insert(a, 'user:1', 0);
    const inB = slots.insert(b, 'user:1', 0);
    expect(inA).not.toBe(inB);
    expect(slots.find(a, 'user:1')).toBe(inA);
    expect(slots.find(b, 'user:1')).toBe(inB);
    // A group in a's key space: its keys are found in that space.
    const shared = slots.addGroup(a);
    const inShared = slots.insert(shared, 'user:3', 0);
    expect(slots.find(a, 'user:3')).toBe(inShared);
    expect(slots.find(b, 'user:3')).toBeUndefined();
    slots.remove(inA);
    expect(slots.find(a, 'user:1')).toBeUndefined();
    expect(slots.find(b, 'user:1')).toBe(inB);
    // The slot, reused for another key, is found as that key only.
    const reused = slots.insert(a, 'user:2', 0);
    expect(reused).toBe(inA);
    expect(slots.find(a, 'user:1')).toBeUndefined();
    expect(slots.find(a, 'user:2')).toBe(reused);
  });

  it('20,000 seeded random inserts and removals over 3 key spaces, evicting at 3,000 keys', () => {
    const random = seededRandom(48);
    const capacity = 3000;
    const model = new Map<string, number>(); // `${space}|${key}` -> slot
    const slots = new LruSlots(
      capacity,
      () => {},
      () => {},
    );
    const spaces = [slots.addGroup(), slots.addGroup(), slots.addGroup()];
    const keyOf = new Map<number, string>(); // slot -> model key, to follow evictions
    for (let op = 0; op < 20_000; op++) {
      const space = spaces[Math.floor(random() * spaces.length)]!;
      // Few distinct texts, so keys repeat across spaces and come back after removal.
      const key = `k:${Math.floor(random() * 4000)}`;
      const id = `${space}|${key}`;
      const found = slots.find(space, key);
      expect(found).toBe(model.get(id));
      if (found === undefined) {
        const slot = slots.insert(space, key, 0);
        const evicted = keyOf.get(slot);
        if (evicted !== undefined) model.delete(evicted);
        model.set(id, slot);
        keyOf.set(slot, id);
      } else if (random() < 0.3) {
        slots.remove(found);
        model.delete(id);
        keyOf.delete(found);
      }
    }
    expect(slots.size).toBe(model.size);
    for (const [id, slot] of model) {
      const [space, key] = id.split('|') as [string, string];
      expect(slots.find(Number(space), key)).toBe(slot);
    }
  });
});
