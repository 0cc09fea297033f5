// One class per store error: what the Redis store rejects with (its deadline queue times a
// call out, or gives up the calls sent to a node whose breaker opened) is the class that
// `@sluice/core/store` defines, and the one `@sluice/postgres` and `@sluice/redis` re-export:
// `instanceof` holds whichever package the application imported it from.
import {
  StoreAbandonedError as CoreAbandoned,
  StoreTimeoutError as CoreTimeout,
} from '@sluice/core/store';
import {
  StoreAbandonedError as PostgresAbandoned,
  StoreTimeoutError as PostgresTimeout,
} from '@sluice/postgres';
import { DeadlineQueue, type Pending } from '../src/batching/deadline-queue.js';
import {
  StoreAbandonedError as RedisAbandoned,
  StoreTimeoutError as RedisTimeout,
} from '../src/index.js';

const entry = (server?: string): Pending & { error?: Error } => {
  const e: Pending & { error?: Error } = {
    deadline: 0,
    finished: false,
    server,
    reject: (error) => {
      e.error = error;
    },
  };
  return e;
};

it('a Redis call past its deadline rejects with the one StoreTimeoutError of every store', async () => {
  const queue = new DeadlineQueue(5);
  const late = entry();
  queue.track(late);
  for (let i = 0; i < 200 && late.error === undefined; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(late.error).toBeInstanceOf(CoreTimeout);
  expect(late.error).toBeInstanceOf(PostgresTimeout);
  expect(late.error).toBeInstanceOf(RedisTimeout);
  expect(late.error).not.toBeInstanceOf(CoreAbandoned);
  expect((late.error as CoreTimeout).timeoutMs).toBe(5);
  expect(late.error?.name).toBe('StoreTimeoutError');
});

it('Redis calls given up (their node stopped answering) reject with the one StoreAbandonedError', () => {
  const queue = new DeadlineQueue(60_000);
  const sent = entry('10.0.0.1:6379');
  queue.track(sent);
  queue.failSent('10.0.0.1:6379');
  expect(sent.error).toBeInstanceOf(CoreAbandoned);
  expect(sent.error).toBeInstanceOf(PostgresAbandoned);
  expect(sent.error).toBeInstanceOf(RedisAbandoned);
  expect(sent.error).not.toBeInstanceOf(CoreTimeout);
  expect(sent.error?.message).toBe(
    'sluice: given up: its Redis node stopped answering (its circuit breaker opened)',
  );
  // The message names what stopped answering by kind, never the node's address.
  expect(sent.error?.message).not.toContain('10.0.0.1');
});

it('the store packages re-export the core classes, not copies of them', () => {
  expect([RedisTimeout, PostgresTimeout]).toEqual([CoreTimeout, CoreTimeout]);
  expect([RedisAbandoned, PostgresAbandoned]).toEqual([CoreAbandoned, CoreAbandoned]);
});

it('an error made by another copy of @sluice/core (its other build) is instanceof too', () => {
  // The ESM and CommonJS builds each define the class; both brand their instances alike.
  const foreign = Object.create(Object.getPrototypeOf(new CoreTimeout(1))) as object;
  const other = { [Symbol.for('sluice.v0.StoreTimeoutError')]: true };
  expect(foreign).toBeInstanceOf(PostgresTimeout);
  expect(other).toBeInstanceOf(CoreTimeout);
  expect({}).not.toBeInstanceOf(CoreTimeout);
});
