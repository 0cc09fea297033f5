/**
 * A GraphQL Yoga server for `pnpm bench:protocols` (the parent pins nothing; it alternates
 * variants in rounds). argv: `plain` | `sluice`. Replies `{ type: 'ready', port }` over IPC; `start` / `stop` messages
 * measure its CPU (µs) in between.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Limit, MemoryStore, useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';

const variant = process.argv[2];
const typeDefs = `type Query { viewer: Viewer } type Viewer { items(first: Int): Conn }
  type Conn { nodes: [Item] } type Item { id: ID name: String }`;
const resolvers = {
  Query: { viewer: () => ({}) },
  Viewer: {
    items: (_: unknown, { first }: { first: number }) => ({
      nodes: Array.from({ length: first }, (_, i) => ({ id: String(i), name: `n${i}` })),
    }),
  },
};
const plugins =
  variant === 'sluice'
    ? [useSluice({ limit: Limit.perSecond(1_000_000_000), store: new MemoryStore() })]
    : [];
const yoga = createYoga({ schema: createSchema({ typeDefs, resolvers }), plugins, logging: false });
const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port });
});
let start = process.cpuUsage();
process.on('message', (m: { type: string }) => {
  if (m.type === 'start') start = process.cpuUsage();
  else if (m.type === 'stop') {
    const d = process.cpuUsage(start);
    process.send?.({ type: 'cpu', us: d.user + d.system });
  }
});
process.on('disconnect', () => process.exit(0));
