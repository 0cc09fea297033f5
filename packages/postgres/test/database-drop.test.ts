// test-kit's createPostgresDatabase().drop() right after pg's Pool#end(): end() resolves
// before the pool's sockets close, and a FORCE drop that ended them (57P01) would throw the
// error from a client nobody listens to any more, failing whichever test runs then (seen in
// CI). jest fails this test on such an unhandled error.
import { createPostgresDatabase } from '@sluice/test-kit';
import pg from 'pg';

it('dropping right after pool.end() ends no connection still closing', async () => {
  for (let round = 0; round < 12; round++) {
    const db = await createPostgresDatabase();
    const pool = new pg.Pool({ ...db.config, max: 6 });
    await Promise.all(Array.from({ length: 6 }, () => pool.query('SELECT pg_sleep(0.01)')));
    await pool.end();
    await db.drop();
  }
  // An error from an ended socket arrives after the drop's reply.
  await new Promise((resolve) => setTimeout(resolve, 100));
}, 60_000);
