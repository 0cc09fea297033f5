import { describePackageExports } from '@sluice/test-kit';

// @sluice/ai (and the @sluice/core it requires) built with tsup and loaded by name through
// its exports map, with require() and with import(): a charge settled, and a gateway's 429.
describePackageExports({
  name: 'ai',
  functions: [
    'tokenLimiter',
    'estimateTokens',
    'usageTokens',
    'meterStream',
    'limitTokens',
    'Limit',
  ],
  probe: `
    const tokens = pkg.tokenLimiter({ limit: '60/min' });
    const body = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1, max_completion_tokens: 10000 };
    const charge = await tokens.charge(body, { key: 'k' });
    const settled = await charge.settle({ prompt_tokens: 10, completion_tokens: 20 });
    const gw = pkg.limitTokens(() => Response.json({ usage: { prompt_tokens: 1, completion_tokens: 1 } }), {
      limit: '10/min',
      key: () => 'team',
    });
    const post = () => new Request('http://gw/v1/chat/completions', { method: 'POST', body: JSON.stringify(body) });
    const first = await gw(post());
    await first.text();
    const second = await gw(post());
    return { upfront: charge.upfront, remaining: settled[0].remaining, statuses: [first.status, second.status], type: (await second.json()).error.type };
  `,
  check(result) {
    expect(result).toEqual({ upfront: 60, remaining: 30, statuses: [200, 429], type: 'tokens' });
  },
});
