import { EPOCH } from '@sluice/test-kit';
import { pacedFetch } from '../src/index.js';
import { startServer } from './servers.js';
import { VirtualTime } from './virtual-time.js';

it('debug', async () => {
  const time = new VirtualTime(EPOCH + 123);
  const server = await startServer({ adapter: 'express', headers: 'draft-8', clock: time.clock });
  const api = pacedFetch(time.fetch, { clock: time.clock, sleep: time.sleep, maxWait: 200_000 });
  const t0 = Date.now();
  const statuses: number[] = [];
  await time.run(Promise.all(Array.from({ length: 50 }, async () => statuses.push((await api(server.url)).status))));
  console.log(time.now - EPOCH - 123, Date.now() - t0, server.log.map((l) => `${l.at - EPOCH}:${l.status}`).join(' '));
  await server.close();
}, 20000);
