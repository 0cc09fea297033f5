// `price`: a table the user passes (with long-context tiers) or a lookup, and genaiPrices, the
// adapter over @pydantic/genai-prices (a maintained catalogue; sluice keeps no prices).

import { calcPrice } from '@pydantic/genai-prices';
import {
  type GenaiCalcPrice,
  genaiPrices,
  Limit,
  type ModelPrice,
  SluiceConfigError,
  tokenLimiter,
} from '@sluice/ai';
import { seededRandom } from '@sluice/test-kit';
import { fromGenaiModelPrice } from '../src/genai-prices.js';
import { costOf } from '../src/price.js';

const T0 = Date.UTC(2026, 9, 1);
const chat = (model: string, content = 'Hi', max_tokens = 100) => ({
  model,
  messages: [{ role: 'user', content }],
  max_tokens,
});
/** The budget a charge left, in micro-units (the budget is the last decision). */
const left = (decisions: readonly { remaining: number }[]) => decisions.at(-1)!.remaining;

describe('a price table the user passes', () => {
  const gemini: ModelPrice = {
    input: 1_250_000,
    cachedInput: 125_000,
    output: 10_000_000,
    tiers: [{ above: 200_000, input: 2_500_000, cachedInput: 250_000, output: 15_000_000 }],
  };

  it('a tier prices every token of a call whose input is more than its `above`', () => {
    expect(costOf(gemini, { input: 200_000, cachedInput: 0, output: 1000 })).toBe(260_000);
    expect(costOf(gemini, { input: 200_001, cachedInput: 1, output: 1000 })).toBe(
      Math.ceil((200_000 * 2_500_000 + 250_000 + 1000 * 15_000_000) / 1e6),
    );
  });

  it('an Anthropic call settles cache reads and writes at their own rates', async () => {
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perDay(1_000_000_000),
      price: {
        'claude-sonnet-4-5': {
          input: 3_000_000,
          cachedInput: 300_000,
          cacheWriteInput: 3_750_000,
          output: 15_000_000,
        },
      },
      clock: () => T0,
    });
    const charge = await limiter.charge(chat('claude-sonnet-4-5'), { key: 'k' });
    const after = await charge.settle({
      input_tokens: 1000,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 4000,
      output_tokens: 500,
    });
    const cost = Math.ceil(
      (1000 * 3_000_000 + 2000 * 3_750_000 + 4000 * 300_000 + 500 * 15_000_000) / 1e6,
    );
    expect(1_000_000_000 - left(after)).toBe(cost);
  });

  it('tiers given in any order apply by `above`', async () => {
    const p: ModelPrice = {
      input: 1,
      output: 1,
      tiers: [
        { above: 2000, input: 3_000_000, output: 0 },
        { above: 1000, input: 2_000_000, output: 0 },
      ],
    };
    const limiter = tokenLimiter({
      limit: '10000000/min',
      budget: '1000000000/day',
      price: { m: p },
      clock: () => T0,
    });
    const charge = await limiter.charge(
      { model: 'm', input: 'x'.repeat(4 * 1500), max_output_tokens: 0 },
      { key: 'k' },
    );
    const after = await charge.settle({ input_tokens: 1500, output_tokens: 0 });
    expect(1_000_000_000 - left(after)).toBe(3000); // 1,500 tokens at 2 per token
  });

  it.each([
    [
      'a negative tier price',
      { m: { input: 1, output: 1, tiers: [{ above: 5, input: -1, output: 1 }] } },
    ],
    ['a tier without above', { m: { input: 1, output: 1, tiers: [{ input: 1, output: 1 }] } }],
    ['tiers that are no list', { m: { input: 1, output: 1, tiers: {} } }],
    ['a fractional price', { m: { input: 2.5, output: 1 } }],
  ])('%s is a SluiceConfigError naming price', (_what, price) => {
    expect(() => tokenLimiter({ limit: '1000/min', price: price as never })).toThrow(
      SluiceConfigError,
    );
    expect(() => tokenLimiter({ limit: '1000/min', price: price as never })).toThrow(/"price"/);
  });

  it('a lookup prices each call by its model; a bad answer rejects the charge naming price', async () => {
    const seen: (string | undefined)[] = [];
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perDay(1_000_000),
      price: (model) => {
        seen.push(model);
        if (model === 'broken') return { input: -1, output: 0 };
        return model === 'cheap' ? { input: 1_000_000, output: 1_000_000 } : undefined;
      },
      clock: () => T0,
    });
    const charge = await limiter.charge(chat('cheap'), { key: 'k' });
    const after = await charge.settle({ prompt_tokens: 10, completion_tokens: 5 });
    expect(1_000_000 - left(after)).toBe(15);
    await expect(limiter.charge(chat('unknown'), { key: 'k' })).rejects.toThrow(/"price"/);
    await expect(limiter.charge(chat('broken'), { key: 'k' })).rejects.toThrow(SluiceConfigError);
    expect(seen).toEqual(['cheap', 'unknown', 'broken']);
  });
});

describe('genaiPrices over @pydantic/genai-prices', () => {
  it.each([
    ['gpt-4o', 'openai'],
    ['gpt-4o-mini', 'openai'],
    ['claude-sonnet-4-20250514', 'anthropic'],
    ['gemini-2.5-pro', 'google'],
    ['deepseek-chat', 'deepseek'],
  ])(
    '%s: the cost of random usages is the package own price, in micro-units rounded up',
    (model, providerId) => {
      const price = genaiPrices(calcPrice, { providerId, clock: () => T0 })(model);
      expect(price).toBeDefined();
      const random = seededRandom(7);
      for (let i = 0; i < 200; i++) {
        // Up to 400,000 input tokens: both sides of a 200k long-context tier.
        const input = Math.floor(random() * 400_000);
        const cachedInput = Math.floor(random() * input);
        const cacheWriteInput = Math.floor(random() * (input - cachedInput));
        const output = Math.floor(random() * 20_000);
        const theirs = calcPrice(
          {
            input_tokens: input,
            cache_read_tokens: cachedInput,
            cache_write_tokens: cacheWriteInput,
            output_tokens: output,
          },
          model,
          { providerId, timestamp: new Date(T0) },
        )!.total_price;
        const ours = costOf(price!, { input, cachedInput, cacheWriteInput, output });
        // Ours rounds each rate and the call up to whole micro-units; theirs is a float of US$.
        expect(ours).toBeGreaterThanOrEqual(Math.floor(theirs * 1e6 - 1e-6));
        expect(ours).toBeLessThanOrEqual(Math.ceil(theirs * 1e6) + 1);
      }
    },
  );

  it("reads a model's per-million prices, tiers by input size, as integer micro-units", () => {
    expect(
      fromGenaiModelPrice({
        input_mtok: 2.5,
        cache_read_mtok: 1.25,
        output_mtok: 10,
        web_searches_kcount: 10,
      }),
    ).toEqual({ input: 2_500_000, cachedInput: 1_250_000, output: 10_000_000 });
    // Anthropic's: cache writes at 1.25 times the input price.
    expect(
      fromGenaiModelPrice({
        input_mtok: 3,
        cache_write_mtok: 3.75,
        cache_read_mtok: 0.3,
        output_mtok: 15,
      }),
    ).toEqual({
      input: 3_000_000,
      cachedInput: 300_000,
      cacheWriteInput: 3_750_000,
      output: 15_000_000,
    });
    expect(fromGenaiModelPrice({ input_mtok: 0.15, output_mtok: 0.6 })).toEqual({
      input: 150_000,
      output: 600_000,
    });
    expect(
      fromGenaiModelPrice({
        input_mtok: {
          base: 1,
          tiers: [
            { start: 100, price: 2 },
            { start: 50, price: 1.5 },
          ],
        },
        output_mtok: { base: 3, tiers: [{ start: 100, price: 4 }] },
      }),
    ).toEqual({
      input: 1_000_000,
      output: 3_000_000,
      tiers: [
        { above: 50, input: 1_500_000, output: 3_000_000 },
        { above: 100, input: 2_000_000, output: 4_000_000 },
      ],
    });
    // Priced per request or per image only: no token price.
    expect(fromGenaiModelPrice({ requests_kcount: 5 })).toBeUndefined();
  });

  it('a model the package does not know has no price: a budgeted call for it is refused', async () => {
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perDay(1_000_000),
      price: genaiPrices(calcPrice),
      clock: () => T0,
    });
    await expect(limiter.charge(chat('no-such-model-xyz'), { key: 'k' })).rejects.toThrow(
      /"price"/,
    );
  });

  it('charges a monthly budget at the package prices; overrides take precedence', async () => {
    const limiter = tokenLimiter({
      limit: '1000000/min',
      budget: Limit.perCalendarMonth(50_000_000, { timeZone: 'UTC' }),
      price: genaiPrices(calcPrice, {
        providerId: 'openai',
        clock: () => T0,
        overrides: { 'gpt-4o-mini': { input: 0, output: 0 } },
      }),
      clock: () => T0,
    });
    const charge = await limiter.charge(chat('gpt-4o', 'Hi', 1000), { key: 'team' });
    const after = await charge.settle({ prompt_tokens: 1000, completion_tokens: 500 });
    // gpt-4o: US$2.50 / 10.00 per million: 2,500 + 5,000 micro-units.
    expect(50_000_000 - left(after)).toBe(7500);
    const free = await limiter.charge(chat('gpt-4o-mini', 'Hi', 1000), { key: 'team' });
    expect(left(await free.settle({ prompt_tokens: 1000, completion_tokens: 500 }))).toBe(
      50_000_000 - 7500,
    );
  });

  it('looks a model up once per refreshMs on its clock, at that time', () => {
    let now = T0;
    const calls: [string, number][] = [];
    const counted: GenaiCalcPrice = (usage, model, options) => {
      calls.push([model, options!.timestamp!.getTime()]);
      return calcPrice(usage, model, options);
    };
    const price = genaiPrices(counted, { refreshMs: 1000, clock: () => now });
    price('gpt-4o');
    price('gpt-4o');
    price('gpt-4o-mini');
    now += 999;
    price('gpt-4o');
    now += 1;
    price('gpt-4o');
    price('no-such-model-xyz');
    price('no-such-model-xyz'); // an unknown model is remembered too
    expect(calls).toEqual([
      ['gpt-4o', T0],
      ['gpt-4o-mini', T0],
      ['gpt-4o', T0 + 1000],
      ['no-such-model-xyz', T0 + 1000],
    ]);
  });

  it.each([
    ['calcPrice', () => genaiPrices('calcPrice' as never)],
    ['providerId', () => genaiPrices(calcPrice, { providerId: '' })],
    ['refreshMs', () => genaiPrices(calcPrice, { refreshMs: -1 })],
    ['clock', () => genaiPrices(calcPrice, { clock: 5 as never })],
    ['overrides', () => genaiPrices(calcPrice, { overrides: null as never })],
    ['refresh', () => genaiPrices(calcPrice, { refresh: 1 } as never)],
  ])('a bad %s is a SluiceConfigError naming it', (name, make) => {
    expect(make).toThrow(SluiceConfigError);
    expect(make).toThrow(new RegExp(`\\b${name}\\b`));
  });
});
