// pnpm --filter @sluice/example-protocols trpc: calls `hello` 7 times as one user and prints
// each status, Retry-After and the error's data.retryAfter.
import type { AddressInfo } from 'node:net';
import { trpcServer } from '../trpc-app.js';

const server = trpcServer();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hello`;
  console.log(`tRPC on ${url}`);
  for (let i = 1; i <= 7; i++) {
    const res = await fetch(url, { headers: { 'x-user': 'ada' } });
    const body = (await res.json()) as {
      result?: { data: string };
      error?: { data: { retryAfter?: number } };
    };
    console.log(
      res.status,
      res.headers.get('retry-after'),
      JSON.stringify(body.result?.data ?? body.error?.data),
    );
  }
  if (process.env.KEEP !== '1') server.close();
});
