// @sluice/client from the installed tarball (ESM, and CommonJS through require) against an
// Express app on the installed @sluice/express, 5 requests a second: 12 requests at once
// through pacedFetch must all answer 200 (no 429), where plain fetch gets 429s.
import { createRequire } from 'node:module';
import { pacedFetch, SluiceConfigError, WaitTooLongError } from '@sluice/client';
import { SluiceConfigError as CoreConfigError, Limit, rateLimit } from '@sluice/express';
import express from 'express';

const cjs = createRequire(import.meta.url)('@sluice/client');
if (typeof cjs.pacedFetch !== 'function')
  throw new Error('require(@sluice/client) has no pacedFetch');
try {
  pacedFetch(fetch, { maxWait: -1 });
  throw new Error('maxWait: -1 was accepted');
} catch (error) {
  if (!(error instanceof SluiceConfigError) || error.option !== 'maxWait') throw error;
  // One class: the client's SluiceConfigError is the core's (from @sluice/core/shared).
  if (!(error instanceof CoreConfigError) || SluiceConfigError !== CoreConfigError) {
    throw new Error('the client and the core have two SluiceConfigError classes');
  }
}
if (typeof WaitTooLongError !== 'function') throw new Error('no WaitTooLongError');

const app = express();
app.use(rateLimit({ limit: Limit.perSecond(5), headers: 'draft-8' }));
app.get('/', (_req, res) => res.send('ok'));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const api = pacedFetch(fetch);
const statuses = await Promise.all(Array.from({ length: 12 }, async () => (await api(url)).status));
server.closeAllConnections();
server.close();
const denied = statuses.filter((s) => s !== 200).length;
console.log(`client (ESM): ${statuses.length} requests, ${denied} not 200`);
process.exitCode = denied === 0 ? 0 : 1;
