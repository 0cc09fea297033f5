// A CommonJS Express app on the installed tarballs with its counters in an SQLite file
// (better-sqlite3, installed by npm from the peer range): POST /login twice under a
// 1-per-minute limit must answer 200 then 429.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { rateLimit } = require('@sluice/express');
const { SqliteStore } = require('@sluice/sqlite');
const Database = require('better-sqlite3');
const express = require('express');

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-ci-'));
  const database = new Database(join(dir, 'limits.db'));
  try {
    const store = new SqliteStore({ database, sweepIntervalMs: 0 });
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
    console.log(`sqlite: ${codes.join(' ')}`);
    process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
  } finally {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
