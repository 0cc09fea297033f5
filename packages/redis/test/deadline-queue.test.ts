// The deadline queue rejects what is not answered in time, and lets go of what is: an
// answered entry must not stay referenced until its deadline (it holds its calls' promises,
// which would then outlive V8's young generation: most of the store's CPU went to GC).

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { StoreTimeoutError } from '@sluice/core/store';
import { DeadlineQueue, type Pending } from '../src/batching/deadline-queue.js';

const entry = (): Pending & { error?: Error } => {
  const e: Pending & { error?: Error } = {
    deadline: 0,
    finished: false,
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
  for (const e of entries.slice(0, 600)) e.finished = true;
  const middle = entry();
  queue.track(middle);
  expect(queue.size).toBe(401);
  for (const e of [...entries, middle]) e.finished = true;
  queue.track(entry());
  expect(queue.size).toBe(1);
});

it('an entry not answered in time is rejected with StoreTimeoutError, an answered one is not', async () => {
  const queue = new DeadlineQueue(20);
  const late = entry();
  const answered = entry();
  queue.track(answered);
  queue.track(late);
  answered.finished = true;
  // The rejection waits for the check phase after the timer: on a loaded machine the test's
  // own timer can fire in the same timers phase, so wait for it (bounded), not a fixed 60 ms.
  for (let i = 0; i < 200 && late.error === undefined; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(late.error).toBeInstanceOf(StoreTimeoutError);
  expect(late.finished).toBe(true);
  expect(answered.error).toBeUndefined();
  expect(queue.size).toBe(0);
});

it('a timer that fires late (the event loop was blocked) lets a reply already in the socket win', async () => {
  // An echo server in another process: its reply arrives while this process's loop is blocked.
  const server = spawn(process.execPath, [
    '-e',
    "const s = require('net').createServer((c) => c.pipe(c)); s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
  ]);
  const [port] = (await once(server.stdout, 'data')) as [Buffer];
  const socket = connect(Number(String(port).trim()), '127.0.0.1');
  await once(socket, 'connect');
  try {
    const queue = new DeadlineQueue(20);
    const e = entry();
    socket.once('data', () => {
      e.finished = true;
    });
    queue.track(e);
    socket.write('x');
    const start = performance.now();
    while (performance.now() - start < 80) {
      // blocked past the deadline; the echo is in the socket meanwhile
    }
    await new Promise((r) => setTimeout(r, 40));
    expect(e.finished).toBe(true);
    expect(e.error).toBeUndefined();
  } finally {
    socket.destroy();
    server.kill();
  }
});

it('failSent rejects the unanswered entries sent to one server (or every server), not the others', () => {
  const queue = new DeadlineQueue(60_000);
  const a = { ...entry(), server: 'a:1' };
  const b = { ...entry(), server: 'b:1' };
  const unsent = entry();
  const answered = { ...entry(), server: 'a:1', finished: true };
  for (const e of [a, b, unsent, answered]) queue.track(e);
  // (The spread copies lose the `error` capture: look at `finished`.)
  queue.failSent('a:1');
  expect([a.finished, b.finished, unsent.finished]).toEqual([true, false, false]);
  queue.failSent(undefined);
  expect([b.finished, unsent.finished]).toEqual([true, false]);
});
