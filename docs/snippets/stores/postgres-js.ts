// #region postgresjs
import { PostgresStore } from '@sluice/postgres';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL ?? 'postgres://localhost/app');
const store = new PostgresStore({ client: sql, table: 'api_limits', logged: true });
// #endregion postgresjs
void store;
