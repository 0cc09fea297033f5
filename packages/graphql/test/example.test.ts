// The runnable example of the GraphQL guide (examples/protocols/src/graphql-app.ts) does what
// the guide says: 150 requested, 40 actual, 110 given back on each query.
import type { AddressInfo } from 'node:net';
import { graphqlServer } from '../../../examples/protocols/src/graphql-app.js';

it('the guide example settles every 150-point query to 40 and writes qu="points" headers', async () => {
  const server = graphqlServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  try {
    const available: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': 'ada' },
        body: JSON.stringify({ query: '{ repositories(first: 150) { nodes { name } } }' }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"points";q=1000;qu="points";w=3600');
      const body = (await res.json()) as {
        extensions: {
          cost: {
            requested: number;
            actual: number;
            throttleStatus: { currentlyAvailable: number };
          };
        };
      };
      expect(body.extensions.cost).toMatchObject({ requested: 150, actual: 40 });
      available.push(body.extensions.cost.throttleStatus.currentlyAvailable);
    }
    // 40 per query stays charged (a few ms of refill at 0.28 points/s adds no whole point)
    expect(available).toEqual([960, 920, 880, 840, 800, 760, 720, 680]);
  } finally {
    await new Promise((r) => server.close(r));
  }
});
