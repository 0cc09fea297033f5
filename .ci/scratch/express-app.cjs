// A CommonJS Express app on the installed tarballs: GET / twice under a 1-per-minute limit
// must answer 200 then 429. The limit is a named limiter defined through the ESM build
// (`import('@sluice/core')`) and used by the CommonJS adapter: one registry per process.
const express = require('express');
const { rateLimit, SluiceConfigError } = require('@sluice/express');

async function main() {
  const esm = await import('@sluice/core');
  esm.throttles.define('once', (req) => esm.Limit.perMinute(1).by(req.ip));
  try {
    rateLimit({ windowMs: 60_000, max: 1 });
    throw new Error('windowMs was accepted');
  } catch (error) {
    if (!(error instanceof SluiceConfigError)) throw error;
  }
  const app = express();
  app.use(rateLimit({ limit: 'throttle:once' }));
  app.get('/', (_req, res) => res.send('ok'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const codes = [];
  for (let i = 0; i < 2; i++) codes.push((await fetch(url)).status);
  server.close();
  console.log(`express (CommonJS): ${codes.join(' ')}`);
  process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
