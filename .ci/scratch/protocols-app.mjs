// @sluice/graphql, @sluice/ws and @sluice/trpc as a user installs them (ESM): a Yoga query
// admitted then limited (429, extensions.retryAfter), a ws socket closed with 1008 after its
// burst, a tRPC call answered 429 with Retry-After. Prints the results; exits 1 on a mismatch.
import { createServer } from 'node:http';
import { Limit, useSluice } from '@sluice/graphql';
import { sluiceResponseMeta, sluiceTrpc } from '@sluice/trpc';
import { limitMessages } from '@sluice/ws';
import { initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createSchema, createYoga } from 'graphql-yoga';
import { WebSocket, WebSocketServer } from 'ws';

const yoga = createYoga({
  schema: createSchema({
    typeDefs: 'type Query { hello: String }',
    resolvers: { Query: { hello: () => 'hi' } },
  }),
  plugins: [
    useSluice({ limit: Limit.perHour(1), key: () => 'me', fieldCosts: { 'Query.hello': 1 } }),
  ],
  logging: false,
});
const q = () => yoga.fetch('http://x/graphql?query=%7Bhello%7D');
const first = await q();
const second = await q();
const limited = await second.json();
const graphql = [first.status, second.status, limited.errors?.[0]?.extensions?.retryAfter];

const http = createServer();
const wss = new WebSocketServer({ server: http });
wss.on('connection', (ws, req) => {
  limitMessages(ws, Limit.perSecond(5), { request: req, clock: () => 0 });
  ws.on('message', () => {});
});
await new Promise((r) => http.listen(0, '127.0.0.1', r));
const client = new WebSocket(`ws://127.0.0.1:${http.address().port}`);
await new Promise((r) => client.once('open', r));
const closed = new Promise((r) => client.once('close', (code) => r(code)));
for (let i = 0; i < 20; i++) client.send('x');
const code = await closed;
wss.close();
http.close();

const t = initTRPC.create();
const router = t.router({
  hi: t.procedure.use(sluiceTrpc('1/min', { key: () => 'me' })).query(() => 'hi'),
});
const call = () =>
  fetchRequestHandler({
    endpoint: '/trpc',
    req: new Request('http://x/trpc/hi'),
    router,
    createContext: () => ({}),
    responseMeta: sluiceResponseMeta,
  });
const a = await call();
const b = await call();
const trpc = [a.status, b.status, b.headers.get('retry-after')];

const got = JSON.stringify({ graphql, ws: code, trpc });
console.log(got);
process.exit(
  got === JSON.stringify({ graphql: [200, 429, 3600], ws: 1008, trpc: [200, 429, '60'] }) ? 0 : 1,
);
