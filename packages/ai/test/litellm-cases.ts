// The mistakes LiteLLM published in 2026 (docs/guide/ai.md, "What sluice does where the
// gateways over-admitted"), each a named case that fails on the mistake and passes on
// sluice. Run on the memory store (litellm.test.ts) and on Redis (litellm-redis.test.ts).

import { estimateTokens, tokenLimiter } from '@sluice/ai';
import type { Store } from '@sluice/core';

/** A store per case, on a fresh prefix; `close` after all. */
export interface CaseStore {
  store(): Store;
  prefix(): string;
}

const T0 = 1_700_000_000_000;

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
});

export function describeLiteLLMCases(name: string, s: CaseStore): void {
  describe(`the LiteLLM cases on ${name}`, () => {
    const setup = (limit: string, extra: Record<string, unknown> = {}) => {
      const now = { ms: T0 };
      const limiter = tokenLimiter({
        limit,
        store: s.store(),
        prefix: s.prefix(),
        clock: () => now.ms,
        onStoreError: 'deny',
        ...extra,
      });
      return { now, limiter };
    };

    it('#18730: 50 concurrent charges never share one remaining budget', async () => {
      const { limiter } = setup('1000/min');
      const body = chat('Summarise the attached meeting notes, please.', { max_tokens: 80 });
      const each = await estimateTokens(body);
      const fits = Math.floor(1000 / each);
      expect(fits).toBeLessThan(50); // the mistake admits all 50
      const charges = await Promise.all(
        Array.from({ length: 50 }, () => limiter.charge(body, { key: 'team-a' })),
      );
      const admitted = charges.filter((c) => c.allowed);
      expect(admitted).toHaveLength(fits);
      expect(admitted.reduce((sum, c) => sum + c.upfront, 0)).toBeLessThanOrEqual(1000);
      expect(charges.filter((c) => !c.allowed).every((c) => c.upfront === 0)).toBe(true);
    });

    it('PR #29193: the first call on a 60 TPM key is admitted (upfront capped at 60)', async () => {
      const { limiter } = setup('60/min');
      const body = chat('Hello'); // no output cap: 1024 output tokens assumed
      expect(await estimateTokens(body)).toBeGreaterThan(60);
      const charge = await limiter.charge(body, { key: 'small' });
      expect(charge.allowed).toBe(true);
      expect(charge.upfront).toBe(60);
    });

    it('PR #34223: max_tokens 1 + max_completion_tokens 10000 charges 60, not 2; the next call waits', async () => {
      const { limiter, now } = setup('60/min');
      const body = chat('Write a long story', { max_tokens: 1, max_completion_tokens: 10_000 });
      const first = await limiter.charge(body, { key: 'k' });
      expect(first.allowed).toBe(true);
      expect(first.upfront).toBe(60);
      await first.settle({ prompt_tokens: 12, completion_tokens: 738 });
      // 750 tokens used on a 60-token-a-minute key: the debt drains at 1 token a second.
      const next = await limiter.charge(chat('Hi', { max_tokens: 1 }), { key: 'k' });
      expect(next.allowed).toBe(false);
      expect(next.retryAfterMs).toBeGreaterThan(600_000);
      now.ms += next.retryAfterMs - 1_000;
      expect((await limiter.charge(chat('Hi', { max_tokens: 1 }), { key: 'k' })).allowed).toBe(
        false,
      );
      now.ms += 1_000;
      expect((await limiter.charge(chat('Hi', { max_tokens: 1 }), { key: 'k' })).allowed).toBe(
        true,
      );
    });

    it('#34728: a Responses call is charged up front and settled to its real usage', async () => {
      const { limiter } = setup('10000/min');
      const body = { model: 'gpt-4.1', input: 'Plan a trip to Lisbon', max_output_tokens: 2000 };
      const charge = await limiter.charge(body, { key: 'r' });
      expect(charge.upfront).toBe(await estimateTokens(body));
      expect(charge.upfront).toBeGreaterThan(2000);
      const after = await charge.settle({ input_tokens: 1200, output_tokens: 1800 });
      expect(after[0]!.remaining).toBe(10_000 - 3000);
    });

    it('#17664: input and output tokens are both counted', async () => {
      const { limiter } = setup('10000/min');
      const charge = await limiter.charge(chat('Hi', { max_tokens: 500 }), { key: 'io' });
      const after = await charge.settle({ prompt_tokens: 4000, completion_tokens: 100 });
      expect(after[0]!.remaining).toBe(10_000 - 4100);
      const anthropic = await limiter.charge(
        {
          model: 'claude-sonnet-4-5',
          system: 'Be brief',
          messages: [{ role: 'user', content: 'Hi' }],
          max_tokens: 100,
        },
        { key: 'io' },
      );
      const later = await anthropic.settle({
        input_tokens: 10,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 1000,
        output_tokens: 90,
      });
      expect(later[0]!.remaining).toBe(10_000 - 4100 - 1300);
    });

    it('requests, input and output limits are charged all or nothing', async () => {
      const { limiter } = setup('100000/min', { requests: '2/min', output: '3000/min' });
      const body = chat('Hi', { max_tokens: 1000 });
      const a = await limiter.charge(body, { key: 'all' });
      const b = await limiter.charge(body, { key: 'all' });
      expect([a.allowed, b.allowed]).toEqual([true, true]);
      expect(a.decisions.map((d) => d.remaining)).toEqual([100_000 - a.upfront, 1, 2000]);
      const c = await limiter.charge(body, { key: 'all' }); // the request limit refuses
      expect(c.allowed).toBe(false);
      await a.cancel(); // the first call failed before any token: all given back
      const d = await limiter.charge(body, { key: 'all' });
      expect(d.allowed).toBe(true);
      expect(d.decisions.map((x) => x.remaining)).toEqual([100_000 - 2 * a.upfront, 0, 1000]);
    });
  });
}
