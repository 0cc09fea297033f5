// pnpm --filter @sluice/example-protocols graphql: starts the server, sends 8 queries of 150
// requested points as one user, and prints what each answer says about its cost.
import type { AddressInfo } from 'node:net';
import { graphqlServer } from '../graphql-app.js';

const server = graphqlServer();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  console.log(`GraphQL on ${url}`);
  for (let i = 1; i <= 8; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-user': 'ada' },
      body: JSON.stringify({ query: '{ repositories(first: 150) { nodes { name } } }' }),
    });
    const body = (await res.json()) as {
      extensions?: { cost: unknown };
      errors?: { extensions: unknown }[];
    };
    console.log(res.status, JSON.stringify(body.extensions?.cost ?? body.errors?.[0]?.extensions));
  }
  if (process.env.KEEP !== '1') server.close();
});
