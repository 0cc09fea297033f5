// A Yoga server for the yoga bench, argv `plain` | `noop` (an empty onExecute) | `sluice`, then the
// query `small` | `wide` (default small); IPC `start` / `stop` measure its CPU, `inproc` runs n
// requests through yoga.fetch and replies the CPU µs per request.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Limit, MemoryStore, useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { hundredFieldCase, yogaQuery } from './cost.js';

const [variant, query = 'small'] = process.argv.slice(2);
// `small`: a hello-world query (Yoga's own work is least, the plugin's share largest);
// `wide`: the 100-field query of the cost bench, 5 items per connection.
const item = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, `v${i}`]));
const nodes = (first: number) => ({ nodes: Array.from({ length: first }, () => item) });
const schema =
  query === 'wide'
    ? createSchema({
        typeDefs: hundredFieldCase().typeDefs,
        resolvers: {
          Query: { viewer: () => ({}) },
          Viewer: Object.fromEntries(
            Array.from({ length: 10 }, (_, i) => [
              `c${i}`,
              (_: unknown, a: { first: number }) => nodes(a.first),
            ]),
          ),
        },
      })
    : createSchema({
        typeDefs: `type Query { viewer: Viewer } type Viewer { items(first: Int): Conn }
          type Conn { nodes: [Item] } type Item { id: ID name: String }`,
        resolvers: {
          Query: { viewer: () => ({}) },
          Viewer: {
            items: (_: unknown, { first }: { first: number }) => ({
              nodes: Array.from({ length: first }, (_, i) => ({ id: String(i), name: `n${i}` })),
            }),
          },
        },
      });
const plugins =
  variant === 'sluice'
    ? [useSluice({ limit: Limit.perSecond(1_000_000_000), store: new MemoryStore() })]
    : variant === 'noop'
      ? [{ onExecute() {} }]
      : [];
const yoga = createYoga({ schema, plugins, logging: false });
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});
// In process (`inproc`): n requests one after another through yoga.fetch, no HTTP, with a
// Node request's socket in the context as on a server; replies the CPU µs per request.
const url = `http://127.0.0.1/graphql?${yogaQuery(query === 'wide' ? 'wide' : 'small')}`;
const context = { req: { socket: { remoteAddress: '127.0.0.1' }, headers: {} } };
async function inProcess(n: number): Promise<number> {
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) await (await yoga.fetch(url, {}, context)).text();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / n;
}
let start = process.cpuUsage();
process.on('message', async (m: { type: string; n?: number }) => {
  if (m.type === 'start') start = process.cpuUsage();
  else if (m.type === 'stop') {
    const d = process.cpuUsage(start);
    process.send?.({ type: 'cpu', us: d.user + d.system });
  } else if (m.type === 'inproc') process.send?.({ type: 'cpu', us: await inProcess(m.n!) });
});
process.on('disconnect', () => process.exit(0));
