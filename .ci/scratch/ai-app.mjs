// .ci/user-install: @sluice/ai from its tarball, in ESM and CommonJS: a token charge capped
// at a small budget and settled, and a gateway (limitTokens on a Hono app) answering 200
// then OpenAI's 429. Exits 1 on the first thing that is not as documented.
import { createRequire } from 'node:module';
import { limitTokens, tokenLimiter } from '@sluice/ai';
import { Hono } from 'hono';

const fail = (what) => {
  console.error(`ai-app: ${what}`);
  process.exit(1);
};
const body = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Hi' }],
  max_tokens: 1,
  max_completion_tokens: 10000,
};

const tokens = tokenLimiter({ limit: '60/min' });
const charge = await tokens.charge(body, { key: 'team-a' });
if (!charge.allowed || charge.upfront !== 60)
  fail(`the first call on a 60 TPM key: ${charge.upfront}`);
await charge.settle({ prompt_tokens: 12, completion_tokens: 738 });
if ((await tokens.charge(body, { key: 'team-a' })).allowed)
  fail('the call after a 750-token debt was admitted');

const app = new Hono().post('/v1/chat/completions', (c) =>
  c.json({ id: 'x', choices: [], usage: { prompt_tokens: 5, completion_tokens: 5 } }),
);
const gateway = limitTokens(app.fetch, {
  limit: '20/min',
  key: (req) => req.headers.get('x-team') ?? 'none',
});
const post = () =>
  new Request('http://gw/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-team': 't' },
    body: JSON.stringify(body),
  });
const first = await gateway(post());
await first.text();
if (first.status !== 200 || first.headers.get('x-ratelimit-limit-tokens') !== '20')
  fail(`first: ${first.status}`);
const second = await gateway(post());
const error = (await second.json()).error;
if (second.status !== 429 || error?.code !== 'rate_limit_exceeded' || error.type !== 'tokens')
  fail(`second: ${second.status}`);

const cjs = createRequire(import.meta.url)('@sluice/ai');
if (typeof cjs.tokenLimiter !== 'function' || typeof cjs.meterStream !== 'function')
  fail('require(@sluice/ai)');
console.log('ai-app: ok');
