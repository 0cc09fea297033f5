// One socket.io server process on a shared Redis: limitIoEvents on 'work' for each user.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Limit } from '@sluice/core';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { limitIoEvents } from '../src/index.js';

const redis = new Redis({ port: Number(process.env.REDIS_PORT), host: '127.0.0.1' });
const store = new RedisStore({ client: redis });
const http = createServer();
const io = new Server(http);
// Authentication first: the user the events are keyed by.
io.use((socket, next) => {
  socket.data.user = { id: String(socket.handshake.auth.user) };
  next();
});
io.use(
  limitIoEvents(
    { work: Limit.perHour(50).named('work') },
    { store, prefix: process.env.PREFIX, onStoreError: 'deny' },
  ),
);
io.on('connection', (socket) => {
  socket.on('work', (ack: (r: unknown) => void) => ack({ ok: true, pid: process.pid }));
});
http.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (http.address() as AddressInfo).port });
});
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') {
    io.close();
    redis.disconnect();
    process.exit(0);
  }
});
