// An Express app on the installed tarballs with its counters in PostgreSQL, through the
// client named by the argument (`pg` or `postgres`, installed by npm from the peer range):
// POST /login twice under a 1-per-minute limit must answer 200 then 429. Uses the local
// PostgreSQL (127.0.0.1:5432, user postgres) in a database of its own, dropped at the end.
import { randomBytes } from 'node:crypto';
import { rateLimit } from '@sluice/express';
import { PostgresStore } from '@sluice/postgres';
import express from 'express';
import pg from 'pg';

const which = process.argv[2];
const name = `sluice_ci_${randomBytes(6).toString('hex')}`;
const admin = new pg.Client({
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'postgres',
});
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = `postgres://postgres@127.0.0.1:5432/${name}`;
let client;
let close;
try {
  if (which === 'postgres') {
    const { default: postgres } = await import('postgres');
    client = postgres(url, { max: 2, onnotice: () => undefined });
    close = () => client.end();
  } else {
    client = new pg.Pool({ connectionString: url, max: 2 });
    // As docs/guide/postgres.md asks: pg's end() resolves before its connections have
    // closed, and the DROP ... WITH (FORCE) below ends any that has not (57P01).
    client.on('error', (error) => console.error(`postgres pool: ${error.code}`));
    close = () => client.end();
  }
  const store = new PostgresStore({ client, sweepIntervalMs: 0 });
  await store.migrate();
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
  console.log(`postgres (${which}): ${codes.join(' ')}`);
  process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
} finally {
  await close?.();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
