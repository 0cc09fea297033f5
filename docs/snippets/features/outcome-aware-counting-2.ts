import { fixedWindow, RateLimiter } from '@sluice/core';

const limiter = new RateLimiter({ algorithm: fixedWindow({ limit: 5, window: '1m' }) });

const at = Date.now(); // the limiter's clock when the charge is made
const d = await limiter.consume('login:10.0.0.1');
if (d.allowed && (await checkPassword())) {
  // Exactly what the charge took goes back; the key's peek is returned.
  await limiter.refund('login:10.0.0.1', { charge: d, atMs: at });
}

async function checkPassword() {
  return true;
}
