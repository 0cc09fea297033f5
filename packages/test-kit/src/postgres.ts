import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL every machine and CI run has: 127.0.0.1:5432, user postgres, trust auth. */
export const POSTGRES = {
  host: process.env.SLUICE_PG_HOST ?? '127.0.0.1',
  port: Number(process.env.SLUICE_PG_PORT ?? 5432),
  user: process.env.SLUICE_PG_USER ?? 'postgres',
};

/** A database made for one test run (see {@link createPostgresDatabase}). */
export interface PostgresDatabase {
  /** Its name: `sluice_test_<random>`. */
  readonly name: string;
  /** Connection settings for `pg` (`new pg.Pool(db.config)`). */
  readonly config: { host: string; port: number; user: string; database: string };
  /** `postgres://…` for postgres.js and child processes. */
  readonly url: string;
  /** Drops it (every connection to it is ended first). */
  drop(): Promise<void>;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...POSTGRES, database: 'postgres' });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database with a unique name on the local PostgreSQL, so a test run never
 * touches anyone else's data; `drop()` removes it.
 */
export async function createPostgresDatabase(): Promise<PostgresDatabase> {
  const name = `sluice_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const config = { ...POSTGRES, database: name };
  return {
    name,
    config,
    url: `postgres://${POSTGRES.user}@${POSTGRES.host}:${POSTGRES.port}/${name}`,
    drop: () =>
      admin(async (c) => {
        // pg's Pool#end() resolves before its sockets close. A FORCE drop would end those
        // connections (57P01) and the ended client, with no listener left, would throw it
        // into the test. So wait (bounded) for the run's own connections to go first.
        for (let i = 0; i < 100; i++) {
          const open = await c.query(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1',
            [name],
          );
          if (Number(open.rows[0].n) === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
