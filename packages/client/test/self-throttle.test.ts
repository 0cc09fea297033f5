import { EPOCH, seededRandom as seeded } from '@sluice/test-kit';
import { pacedFetch, SelfThrottledError, SluiceConfigError } from '../src/index.js';

// selfThrottle: Google SRE book's client-side throttling ("Handling Overload"): reject
// locally with probability max(0, (requests - 2·accepts) / (requests + 1)) over the
// trailing 2 minutes, for servers that send no rate-limit headers.

/** A server whose answers come from `answer`, on a clock the test moves by hand. */
function server(answer: (n: number) => { status: number; headers?: Record<string, string> }) {
  const statuses: number[] = [];
  const fetchFn = async (_input: string) => {
    const a = answer(statuses.length + 1);
    statuses.push(a.status);
    return new Response('x', { status: a.status, headers: a.headers ?? {} });
  };
  return { fetch: fetchFn, statuses };
}

/** Sends `n` calls one after another, `stepMs` apart; what each came to. */
async function trace(
  api: (url: string) => Promise<Response>,
  clock: { now: number },
  n: number,
  stepMs: number,
) {
  const outcomes: (number | 'local')[] = [];
  for (let i = 0; i < n; i++) {
    clock.now += stepMs;
    try {
      outcomes.push((await api('https://a.test/x')).status);
    } catch (error) {
      if (!(error instanceof SelfThrottledError)) throw error;
      outcomes.push('local');
    }
  }
  return outcomes;
}

const count = (outcomes: (number | 'local')[], what: number | 'local') =>
  outcomes.filter((o) => o === what).length;

describe('selfThrottle: the formula', () => {
  it('rejects with probability (requests - 2·accepts) / (requests + 1): 6 refusals give 6/7', async () => {
    const clock = { now: EPOCH };
    const draws: number[] = [0.99, 0.99, 0.99, 0.99, 0.99, 0.99, 0.857, 0.876];
    const s = server(() => ({ status: 429 }));
    const api = pacedFetch(s.fetch, {
      selfThrottle: true,
      clock: () => clock.now,
      random: () => draws.shift() ?? 0.99,
    });
    expect(await trace(api, clock, 6, 10)).toEqual([429, 429, 429, 429, 429, 429]);
    // requests 6, accepts 0: p = 6/7 = 0.857142…; a draw of 0.857 is below it.
    const error = await api('https://a.test/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SelfThrottledError);
    expect(error).toMatchObject({ probability: 6 / 7, requests: 6, accepts: 0 });
    // The rejection counts as a request: p = 7/8 = 0.875, a draw of 0.876 is above it.
    expect((await api('https://a.test/x')).status).toBe(429);
    expect(s.statuses).toHaveLength(7);
  });

  it('429 and 503 are not accepts, other answers are: 3 x 200 and 7 x 503 give 4/11', async () => {
    const clock = { now: EPOCH };
    const s = server((n) => ({ status: n <= 3 ? 200 : 503 }));
    const draws = Array.from({ length: 10 }, () => 0.999);
    const api = pacedFetch(s.fetch, {
      selfThrottle: true,
      clock: () => clock.now,
      random: () => draws.shift() ?? 0,
    });
    const outcomes = await trace(api, clock, 10, 10);
    expect(outcomes).toEqual([200, 200, 200, 503, 503, 503, 503, 503, 503, 503]);
    const error = await api('https://a.test/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ probability: 4 / 11, requests: 10, accepts: 3 });
  });

  it('each pacedFetch keeps its own counts', async () => {
    const clock = { now: EPOCH };
    const s = server(() => ({ status: 429 }));
    const options = { selfThrottle: true, clock: () => clock.now, random: () => 0 };
    const first = pacedFetch(s.fetch, options);
    expect(await trace(first, clock, 2, 10)).toEqual([429, 'local']);
    expect(await trace(pacedFetch(s.fetch, options), clock, 1, 10)).toEqual([429]);
  });

  it('counts the trailing 2 minutes only: 121 s later the refusals are forgotten', async () => {
    const clock = { now: EPOCH };
    const s = server(() => ({ status: 429 }));
    const api = pacedFetch(s.fetch, {
      selfThrottle: true,
      clock: () => clock.now,
      random: () => 0,
    });
    const outcomes = await trace(api, clock, 3, 10);
    // 1 refusal: p = 1/2, a draw of 0 rejects from the second call on.
    expect(outcomes).toEqual([429, 'local', 'local']);
    const counts = async () => {
      const e = (await api('https://a.test/x').catch((x: unknown) => x)) as SelfThrottledError;
      return e instanceof SelfThrottledError ? [e.requests, e.accepts] : e;
    };
    // At 119 s the 3 calls (all at about 0 s) still count; at 121 s only the one at 119 s.
    clock.now = EPOCH + 119_000;
    expect(await counts()).toEqual([3, 0]);
    clock.now = EPOCH + 121_000;
    expect(await counts()).toEqual([1, 0]);
    clock.now = EPOCH + 243_000;
    expect(await trace(api, clock, 1, 0)).toEqual([429]);
  });

  it('while the server sends rate-limit headers they pace, not the formula', async () => {
    const clock = { now: EPOCH };
    let headers = true;
    const s = server(() => ({
      status: 503,
      headers: headers ? { RateLimit: '"api";r=5;t=1' } : ({} as Record<string, string>),
    }));
    const api = pacedFetch(s.fetch, {
      selfThrottle: true,
      clock: () => clock.now,
      random: () => 0,
    });
    // 10 refusals (p = 10/11) but every answer names a policy with quota left: all sent.
    expect(count(await trace(api, clock, 10, 1000), 503)).toBe(10);
    headers = false;
    expect(await trace(api, clock, 2, 1000)).toEqual([503, 'local']);
  });

  it('is off by default: the same refusals never reject locally', async () => {
    const clock = { now: EPOCH };
    const s = server(() => ({ status: 429 }));
    const api = pacedFetch(s.fetch, { clock: () => clock.now, random: () => 0 });
    expect(count(await trace(api, clock, 20, 10), 429)).toBe(20);
  });

  it.each([
    ['selfThrottle', { selfThrottle: 'yes' }],
    ['random', { random: 0.5 }],
  ])('a bad %s is a SluiceConfigError at creation', (option, options) => {
    expect(() => pacedFetch(fetch, options as never)).toThrow(SluiceConfigError);
    expect(() => pacedFetch(fetch, options as never)).toThrow(`"${option}"`);
  });
});

describe('selfThrottle against a seeded server that answers 429 at random', () => {
  // 3,000 calls, one every 100 ms (300 s: 1,200 calls per 2-minute window), one seed for
  // the server's coin and one for the client's draws: a deterministic trace.
  const run = async (acceptRate: number, selfThrottle: boolean) => {
    const clock = { now: EPOCH };
    const coin = seeded(45);
    const s = server(() => ({ status: coin() < acceptRate ? 200 : 429 }));
    const api = pacedFetch(s.fetch, {
      selfThrottle,
      clock: () => clock.now,
      random: seeded(47),
    });
    const outcomes = await trace(api, clock, 3000, 100);
    return {
      ok: count(outcomes, 200),
      refused: count(outcomes, 429),
      local: count(outcomes, 'local'),
    };
  };

  it('a server that accepts 20 %: the client sends about twice what is accepted and sheds the rest', async () => {
    const without = await run(0.2, false);
    const paced = await run(0.2, true);
    // The trace is seeded (the same every run); the bounds still hold for any seed at the
    // margins given. Without: every call reaches the server, 80 % refused (measured 2,390 of
    // 3,000; binomial sd 21.9, so 2,300 is 4.1 sd below the mean of 2,400).
    expect(without.local).toBe(0);
    expect(without.refused).toBeGreaterThan(2300);
    // With: the formula's fixed point is p -> 1 when K·(accept rate) < 1: the client keeps
    // sending about 2·accepts + 1 per window. Measured: 76 sent (15 ok, 61 refused), 2,924
    // shed locally; the bounds are 1.6 times the measured count and 3.5 % below it.
    expect(paced.local).toBeGreaterThan(2800);
    expect(paced.refused).toBeLessThan(100);
    expect(paced.ok + paced.refused + paced.local).toBe(3000);
  });

  it('a server that accepts 60 % (K·0.6 > 1): almost nothing is shed', async () => {
    const paced = await run(0.6, true);
    // p is 0 once accepts outnumber half the requests: measured 1 shed, 1,819 ok, 1,180
    // refused (ok: mean 1,800, binomial sd 26.8; 1,690 is 4.1 sd below it).
    expect(paced.local).toBeLessThan(30);
    expect(paced.ok).toBeGreaterThan(1690);
  });
});
