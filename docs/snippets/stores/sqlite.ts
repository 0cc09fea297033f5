// A limiter shared by every process of one host (PM2, node:cluster), in an SQLite file.
// #region store
import { gcra, RateLimiter } from '@sluice/core';
import { SqliteStore } from '@sluice/sqlite';
import Database from 'better-sqlite3';

const database = new Database('/var/lib/my-app/limits.db'); // every process opens the same file
const store = new SqliteStore({ database }); // WAL, busy timeout, the table: all at construction
await store.ready(); // the tables are there (a dropped one rejects naming store.migrate())

const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
const decision = await limiter.consume('user:42');

// The store itself answers synchronously: a Decision, never a promise.
const direct = store.consume('user:42', gcra({ rate: 60, period: '1m' }), 1, Date.now());
// #endregion store
console.log(decision.allowed, direct.remaining);
