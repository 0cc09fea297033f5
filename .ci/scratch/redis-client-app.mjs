// An Express app on the installed tarballs with its counters in Redis, through the client
// named by the argument (`ioredis`, `node-redis` or `iovalkey`, each installed by npm from
// its peer range): POST /login twice under a 1-per-minute limit must answer 200 then 429.
// Starts its own redis-server on a free port and stops it by pid.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { rateLimit } from '@sluice/express';
import { RedisStore } from '@sluice/redis';
import express from 'express';

const which = process.argv[2];
const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const server = spawn(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', ''],
  {
    stdio: 'ignore',
  },
);
let client;
let close;
try {
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if (which === 'node-redis') {
        const { createClient } = await import('redis');
        client = createClient({ url });
        client.on('error', () => undefined);
        await client.connect();
        close = () => client.destroy();
      } else {
        const { Redis } = await import(which === 'iovalkey' ? 'iovalkey' : 'ioredis');
        client = new Redis(url, { retryStrategy: () => null, lazyConnect: true });
        client.on('error', () => undefined);
        await client.connect();
        close = () => client.disconnect();
      }
      break;
    } catch (error) {
      if (i > 50) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const store = new RedisStore({ client });
  await store.ready();
  const app = express();
  app.post('/login', rateLimit({ limit: '1/min', store, onStoreError: 'deny' }), (_, res) => {
    res.send('ok');
  });
  const http = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => http.once('listening', resolve));
  const target = `http://127.0.0.1:${http.address().port}/login`;
  const codes = [];
  for (let i = 0; i < 2; i++) codes.push((await fetch(target, { method: 'POST' })).status);
  http.close();
  const pkg = which === 'node-redis' ? 'redis' : which;
  const { version } = JSON.parse(readFileSync(`node_modules/${pkg}/package.json`, 'utf8'));
  console.log(`redis (${which} ${version}): ${codes.join(' ')}`);
  process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
} finally {
  close?.();
  server.kill('SIGKILL');
}
