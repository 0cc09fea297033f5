// A limiter on PostgreSQL: one table and its functions, created once by migrate().
// #region store
import { gcra, RateLimiter } from '@sluice/core';
import { PostgresStore } from '@sluice/postgres';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
// pg's rule: a server that ends an idle connection (restart, failover) is an 'error' event
// on the pool, and Node exits on an 'error' nobody listens to.
pool.on('error', (error) => console.error('postgres pool', error.message));
const store = new PostgresStore({ client: pool }); // the database's clock decides
await store.migrate(); // at deploy or startup: CREATE UNLOGGED TABLE sluice_limits, functions
// where the role may not create: `await store.ready()` checks the migration ran (it rejects
// naming migrate() when the table or functions are missing)

const limiter = new RateLimiter({ algorithm: gcra({ rate: 60, period: '1m' }), store });
const decision = await limiter.consume('user:42');
// #endregion store
console.log(decision.allowed);
