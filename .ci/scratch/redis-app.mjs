// The installed @sluice/redis with the ioredis npm chose for its peer range: a client given
// as `store` is a SluiceConfigError that says `new RedisStore({ client })`, not a dump of
// the client; `new RedisStore({ client })` builds. Needs no Redis server (lazyConnect).
import { readFileSync } from 'node:fs';
import { rateLimit } from '@sluice/express';
import { RedisStore } from '@sluice/redis';
import { Redis } from 'ioredis';

const client = new Redis('redis://:pw-not-shown@127.0.0.1:1', { lazyConnect: true });
let message = '';
try {
  rateLimit({ store: client });
} catch (error) {
  message = error.message;
}
new RedisStore({ client });
client.disconnect();
const ok = message.includes('new RedisStore({ client })') && !message.includes('pw-not-shown');
const { version } = JSON.parse(readFileSync('node_modules/ioredis/package.json', 'utf8'));
console.log(`redis (ioredis ${version}): ${ok ? 'store check ok' : message}`);
process.exitCode = ok ? 0 : 1;
