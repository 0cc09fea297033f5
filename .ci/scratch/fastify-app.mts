// An ESM TypeScript Fastify app on the installed tarballs, compiled with `tsc --strict
// --module nodenext`: GET / twice under a 1-per-minute route limit must answer 200 then 429.
import { type Decision, Limit, rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

const app = Fastify();
await app.register(rateLimit, { limit: 'throttle:60,1', headers: 'draft-8' });
app.get('/', { config: { rateLimit: Limit.perMinute(1) } }, async (request) => {
  const decision: Decision | undefined = request.rateLimit;
  return { remaining: decision?.remaining };
});
app.get('/free', { config: { rateLimit: false } }, async () => 'free');
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;
const codes: number[] = [];
for (let i = 0; i < 2; i++) codes.push((await fetch(`http://127.0.0.1:${port}/`)).status);
await app.close();
console.log(`fastify (ESM TypeScript, strict, nodenext): ${codes.join(' ')}`);
process.exitCode = codes.join(' ') === '200 429' ? 0 : 1;
