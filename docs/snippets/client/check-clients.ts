/**
 * The client page's three recipes (plain fetch, ky, axios), each against a fresh sluice server on
 * 127.0.0.1 (20 a second, a burst of 20): 30 requests at once through each. Prints one JSON
 * line per recipe: the statuses seen and the 429s the server sent. Run by clients.test.ts
 * under tsx (ky is ESM only).
 */
import type { AddressInfo } from 'node:net';
import { Limit, MemoryStore, rateLimit } from '@sluice/express';
import express from 'express';
import { api as axiosApi } from './axios.js';
import { all } from './fetch.js';
import { api as kyApi } from './ky.js';

/** A sluice server of its own per recipe: a recipe starts on a full quota, whatever ran before. */
async function serve() {
  const counts = { denied: 0 };
  const app = express();
  app.use(
    rateLimit({
      limit: Limit.perSecond(20),
      headers: 'draft-8',
      store: new MemoryStore(),
      onLimited: () => {
        counts.denied++;
      },
    }),
  );
  app.get('/items/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    server.close();
  };
  return { base, counts, close };
}
const ids = Array.from({ length: 30 }, (_, i) => i);

const recipes: Record<string, (base: string) => Promise<number[]>> = {
  fetch: (base) => all(base, ids),
  ky: (base) => Promise.all(ids.map(async (id) => (await kyApi.get(`${base}/items/${id}`)).status)),
  axios: (base) =>
    Promise.all(ids.map(async (id) => (await axiosApi.get(`${base}/items/${id}`)).status)),
};
for (const [name, recipe] of Object.entries(recipes)) {
  const { base, counts, close } = await serve();
  const statuses = await recipe(base);
  console.log(JSON.stringify({ name, statuses: [...new Set(statuses)], denied: counts.denied }));
  close();
}
