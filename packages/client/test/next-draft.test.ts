import { EPOCH, VirtualTime } from '@sluice/test-kit';
import { pacedFetch, parseRateLimitHeaders, WaitTooLongError } from '../src/index.js';
import { scripted, virtual } from './scripted.js';

// The RateLimit draft is a draft: the revision answering the directorate review renames
// `r` to `a` and `t` to `w` in the RateLimit field and adds a cost `c`; Atlassian sends the
// fields under a `Beta-` prefix with `RateLimit-Reason`.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const parse = (headers: Record<string, string>) => parseRateLimitHeaders(new Headers(headers), NOW);

describe('the next revision: a (available), w (reset window), c (cost)', () => {
  it('RateLimit: "api";a=3;w=30 reads as remaining 3, reset in 30 s', () => {
    const info = parse({ 'RateLimit-Policy': '"api";q=10;w=60', RateLimit: '"api";a=3;w=30' });
    expect(info.style).toBe('draft-8');
    expect(info.policies).toHaveLength(1);
    expect(info.policies[0]).toMatchObject({
      id: 'api',
      quota: 10,
      windowSeconds: 60,
      remaining: 3,
      resetAt: NOW + 30_000,
      cost: undefined,
    });
  });

  it('the RateLimit field alone, with a cost: "api";a=0;w=5;c=4', () => {
    const [p] = parse({ RateLimit: '"api";a=0;w=5;c=4' }).policies;
    expect(p).toMatchObject({ remaining: 0, resetAt: NOW + 5000, cost: 4 });
  });

  it('both spellings in one member keep the most restrictive: the least remaining, the latest reset', () => {
    const [p] = parse({ RateLimit: '"api";r=5;a=2;t=1;w=9' }).policies;
    expect(p).toMatchObject({ remaining: 2, resetAt: NOW + 9000 });
  });

  it.each([
    ['a negative a', '"api";a=-1;w=5'],
    ['a decimal w', '"api";a=1;w=1.5'],
    ['a string c', '"api";a=1;w=5;c="2"'],
    ['a negative c', '"api";a=1;w=5;c=-2'],
  ])('a malformed member is ignored: %s', (_what, field) => {
    expect(parse({ RateLimit: field }).policies).toEqual([]);
  });

  it('draft-8..11 r / t are read as before', () => {
    const [p] = parse({ RateLimit: '"api";r=7;t=2' }).policies;
    expect(p).toMatchObject({ remaining: 7, resetAt: NOW + 2000, cost: undefined });
  });
});

describe('Beta-RateLimit, Beta-RateLimit-Policy and RateLimit-Reason (Atlassian)', () => {
  it('reads the prefixed fields as draft-8+ ones', () => {
    const info = parse({
      'Beta-RateLimit-Policy': '"global-app";q=65000;w=3600',
      'Beta-RateLimit': '"global-app";r=10;t=600',
    });
    expect(info.style).toBe('draft-8');
    expect(info.policies[0]).toMatchObject({
      id: 'global-app',
      quota: 65000,
      windowSeconds: 3600,
      remaining: 10,
      resetAt: NOW + 600_000,
    });
  });

  it('the unprefixed fields win when both are sent', () => {
    const info = parse({ RateLimit: '"a";r=1;t=1', 'Beta-RateLimit': '"b";r=2;t=2' });
    expect(info.policies.map((p) => p.id)).toEqual(['a']);
  });

  it('RateLimit-Reason: a token or a string; anything else is ignored', () => {
    expect(parse({ 'RateLimit-Reason': 'jira-burst-based' }).reason).toBe('jira-burst-based');
    expect(parse({ 'RateLimit-Reason': '"jira-quota-tenant-based"' }).reason).toBe(
      'jira-quota-tenant-based',
    );
    expect(parse({ 'RateLimit-Reason': 'a b' }).reason).toBeUndefined();
    expect(parse({ 'RateLimit-Reason': 'x'.repeat(65) }).reason).toBeUndefined();
    expect(parse({}).reason).toBeUndefined();
  });
});

describe('pacing a server on the next revision', () => {
  it('waits while "api";a=0;w=5 says the policy is spent', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, (n) => ({
      headers: { RateLimit: `"api";a=${Math.max(0, 2 - n)};w=5` },
    }));
    const api = pacedFetch(server.fetch, virtual(time));
    await time.run(Promise.all(Array.from({ length: 3 }, () => api('https://a.test/x'))));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0, 5000]);
  });

  it('a route whose requests cost c=3 sends only as many as the remaining quota covers', async () => {
    const time = new VirtualTime(EPOCH);
    let left = 10;
    const server = scripted(time, () => {
      left = Math.max(0, left - 3);
      return { headers: { RateLimit: `"api";a=${left};w=60;c=3` } };
    });
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 1000 });
    // The first answer says 7 left at 3 a request: two more fit, the third would not.
    const results = await time.run(
      Promise.allSettled(Array.from({ length: 4 }, () => api('https://a.test/x'))),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(WaitTooLongError);
    expect(server.sent).toHaveLength(3);
  });

  it('Beta-RateLimit paces as RateLimit does', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, (n) => ({
      headers: {
        'Beta-RateLimit-Policy': '"burst";q=2;w=5',
        'Beta-RateLimit': `"burst";r=${Math.max(0, 2 - n)};t=5`,
      },
    }));
    const api = pacedFetch(server.fetch, virtual(time));
    await time.run(Promise.all(Array.from({ length: 3 }, () => api('https://a.test/x'))));
    expect(server.sent.map((s) => s.at - EPOCH)).toEqual([0, 0, 5000]);
  });

  it('a 429 past maxWait names the limit of RateLimit-Reason', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(time, () => ({
      status: 429,
      headers: { 'Retry-After': '120', 'RateLimit-Reason': 'jira-quota-global-based' },
    }));
    const api = pacedFetch(server.fetch, { ...virtual(time), maxWait: 60_000 });
    const error = await time.run(api('https://a.test/x').catch((e: unknown) => e));
    expect(error).toBeInstanceOf(WaitTooLongError);
    expect(error).toMatchObject({ retryAfterMs: 120_000, policy: 'jira-quota-global-based' });
  });

  it('RateLimit-Reason holds back the policy it names, not the whole origin', async () => {
    const time = new VirtualTime(EPOCH);
    const server = scripted(
      time,
      (_n, url): { status?: number; headers: Record<string, string> } => {
        const route = new URL(url).pathname;
        const policy = route === '/a' ? '"burst";r=5;t=1' : '"other";r=5;t=1';
        if (route === '/a' && time.now === EPOCH && server.sent.length === 2) {
          return {
            status: 429,
            headers: { RateLimit: policy, 'Retry-After': '30', 'RateLimit-Reason': 'burst' },
          };
        }
        return { headers: { RateLimit: policy } };
      },
    );
    const api = pacedFetch(server.fetch, { ...virtual(time), retries: 0 });
    await time.run(api('https://a.test/b'));
    const denied = await time.run(api('https://a.test/a'));
    expect(denied.status).toBe(429);
    // /b is not held by /a's "burst": it goes at once; /a waits the 30 s.
    await time.run(Promise.all([api('https://a.test/b'), api('https://a.test/a')]));
    expect(server.sent.map((s) => [new URL(s.url).pathname, s.at - EPOCH])).toEqual([
      ['/b', 0],
      ['/a', 0],
      ['/b', 0],
      ['/a', 30_000],
    ]);
  });
});
