// An app process of the SQLite kill cell: sluice's GCRA on SqliteStore over the file at
// argv[2]. On `{ n }` it decides up to n requests of argv[3], one at a time, and reports
// each (`{ decided, admitted }`) once the report is written to the channel; the runner
// SIGKILLs it in the middle of that loop.
import { RateLimiter } from '@sluice/core';
import { SqliteStore } from '@sluice/sqlite';
import Database from 'better-sqlite3';
import { makeAlgorithm } from './cells.js';

const [file, key, limit] = process.argv.slice(2);
const store = new SqliteStore({ database: new Database(file!), sweepIntervalMs: 0 });
const limiter = new RateLimiter({
  algorithm: makeAlgorithm('gcra', Number(limit)),
  store,
  prefix: 'fm',
  onStoreError: 'deny',
});
process.on('message', async (m: { n: number }) => {
  let admitted = 0;
  for (let decided = 1; decided <= m.n; decided++) {
    if ((await limiter.consume(key!)).allowed) admitted++;
    await new Promise((r) => process.send!({ decided, admitted }, r));
  }
});
process.send!({ ready: true });
