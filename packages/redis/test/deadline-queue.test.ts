// The deadline queue rejects what is not answered in time, and lets go of what is: an
// answered entry must not stay referenced until its deadline (it holds its calls' promises,
// which would then outlive V8's young generation: most of the store's CPU went to GC).
import { DeadlineQueue, type Pending, StoreTimeoutError } from '../src/deadline-queue.js';

const entry = (): Pending & { error?: Error } => {
  const e: Pending & { error?: Error } = {
    deadline: 0,
    settled: false,
    reject: (error) => {
      e.error = error;
    },
  };
  return e;
};

it('answered entries leave the queue when the next one is tracked, not at their deadline', () => {
  const queue = new DeadlineQueue(60_000);
  const entries = Array.from({ length: 1000 }, entry);
  for (const e of entries) queue.track(e);
  expect(queue.size).toBe(1000);
  for (const e of entries.slice(0, 600)) e.settled = true;
  const middle = entry();
  queue.track(middle);
  expect(queue.size).toBe(401);
  for (const e of [...entries, middle]) e.settled = true;
  queue.track(entry());
  expect(queue.size).toBe(1);
});

it('an entry not answered in time is rejected with StoreTimeoutError, an answered one is not', async () => {
  const queue = new DeadlineQueue(20);
  const late = entry();
  const answered = entry();
  queue.track(answered);
  queue.track(late);
  answered.settled = true;
  await new Promise((r) => setTimeout(r, 60));
  expect(late.error).toBeInstanceOf(StoreTimeoutError);
  expect(late.settled).toBe(true);
  expect(answered.error).toBeUndefined();
  expect(queue.size).toBe(0);
});
