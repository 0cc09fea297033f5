import { parseRateLimitHeaders } from '../src/index.js';

// The parser, from the examples of draft-ietf-httpapi-ratelimit-headers-11 and from headers
// real servers send (GitHub, Discord, express-rate-limit, Retry-After dates).
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const parse = (headers: Record<string, string>) => parseRateLimitHeaders(new Headers(headers), NOW);
const only = (headers: Record<string, string>) => {
  const info = parse(headers);
  expect(info.policies).toHaveLength(1);
  return info.policies[0]!;
};

describe('draft-11 examples (sections 3.2, 4.2, 6, 7)', () => {
  it('RateLimit-Policy: "default";q=100;w=10 with RateLimit: "default";r=50;t=30', () => {
    const p = only({
      'RateLimit-Policy': '"default";q=100;w=10',
      RateLimit: '"default";r=50;t=30',
    });
    expect(p).toMatchObject({ id: 'default', name: 'default', quota: 100, windowSeconds: 10 });
    expect(p).toMatchObject({ remaining: 50, resetAt: NOW + 30_000, concurrent: false });
    expect(parse({ RateLimit: '"default";r=50;t=30' }).style).toBe('draft-8');
  });

  it('several policies: "permin";q=50;w=60,"perhr";q=1000;w=3600', () => {
    const info = parse({ 'RateLimit-Policy': '"permin";q=50;w=60,"perhr";q=1000;w=3600' });
    expect(info.policies.map((p) => [p.id, p.quota, p.windowSeconds])).toEqual([
      ['permin', 50, 60],
      ['perhr', 1000, 3600],
    ]);
  });

  it('a list split over two fields is one list', () => {
    const headers = new Headers();
    headers.append('RateLimit-Policy', '"burst";q=100;w=60');
    headers.append('RateLimit-Policy', '"daily";q=1000;w=86400');
    expect(parseRateLimitHeaders(headers, NOW).policies.map((p) => p.id)).toEqual([
      'burst',
      'daily',
    ]);
  });

  it('a partition key: "peruser";q=100;w=60;pk=:cHsdsRa894==: keys the policy by name and pk', () => {
    const p = only({ 'RateLimit-Policy': '"peruser";q=100;w=60;pk=:cHsdsRa894==:' });
    // Kept as base64 (re-encoded: the draft's example has non-zero padding bits).
    expect(p.partitionKey).toMatch(/^cHsdsRa89.==$/);
    expect(p.id).not.toBe('peruser');
    expect(only({ 'RateLimit-Policy': '"peruser";q=100;w=60;pk=:cHsdsRa894==:' }).id).toBe(p.id);
    const other = only({ 'RateLimit-Policy': '"peruser";q=100;w=60;pk=:dHJpYWwxMjEzMjM=:' });
    expect(other.id).not.toBe(p.id);
  });

  it('RateLimit: "default";r=999;pk=:dHJpYWwxMjEzMjM=: has no effective window', () => {
    const p = only({ RateLimit: '"default";r=999;pk=:dHJpYWwxMjEzMjM=:' });
    expect(p).toMatchObject({
      remaining: 999,
      resetAt: undefined,
      partitionKey: 'dHJpYWwxMjEzMjM=',
    });
  });

  it('a quota in content-bytes says nothing about a request count: ignored', () => {
    const info = parse({
      'RateLimit-Policy': '"peruser";q=65535;qu="content-bytes";w=10;pk=:sdfjLJUOUH==:',
    });
    expect(info.policies).toEqual([]);
  });

  it('qu="concurrent-requests" is a concurrency policy', () => {
    const p = only({ 'RateLimit-Policy': '"jobs";q=5;qu="concurrent-requests"' });
    expect(p).toMatchObject({ quota: 5, concurrent: true, windowSeconds: undefined });
  });

  it('RateLimit: "problemPolicy";r=0;t=10 on a redirect, and other parameters as comments', () => {
    const p = only({ RateLimit: '"problemPolicy";r=0;t=10;acme-burst=3' });
    expect(p).toMatchObject({ remaining: 0, resetAt: NOW + 10_000 });
  });

  it('Retry-After beside RateLimit', () => {
    const info = parse({ RateLimit: '"default";r=0;t=10', 'Retry-After': '12' });
    expect(info.retryAt).toBe(NOW + 12_000);
  });
});

describe('malformed fields and members are ignored, never thrown', () => {
  it.each([
    ['not a list', { RateLimit: '"default;r=5' }],
    ['a negative r', { RateLimit: '"default";r=-1;t=5' }],
    ['a fractional r', { RateLimit: '"default";r=1.5;t=5' }],
    ['a negative t', { RateLimit: '"default";r=1;t=-5' }],
    ['r missing', { RateLimit: '"default";t=5' }],
    ['a number as the name', { RateLimit: '5;r=1' }],
    ['a q that is a string', { 'RateLimit-Policy': '"x";q="10";w=1' }],
    ['a w of 0', { 'RateLimit-Policy': '"x";q=10;w=0' }],
    ['a pk that is not a byte sequence', { 'RateLimit-Policy': '"x";q=10;pk="abc"' }],
    ['a 16-digit integer', { RateLimit: '"x";r=1;t=1000000000000000' }],
    ['garbage', { RateLimit: ';;;', 'RateLimit-Policy': '===' }],
  ])('%s', (_what, headers) => {
    expect(() => parse(headers)).not.toThrow();
    expect(parse(headers).policies).toEqual([]);
  });

  it('bytes no Headers object would take, and a get() that throws', () => {
    const odd = { get: (name: string) => (name === 'ratelimit' ? '\u0000\u00ff"' : null) };
    expect(parseRateLimitHeaders(odd, NOW).policies).toEqual([]);
    const throwing = {
      get: () => {
        throw new Error('boom');
      },
    };
    expect(parseRateLimitHeaders(throwing, NOW)).toEqual({
      style: undefined,
      policies: [],
      retryAt: undefined,
    });
  });

  it('the good members of a field stay when another member is malformed', () => {
    const info = parse({ RateLimit: '"a";r=-1;t=1, "b";r=3;t=2' });
    expect(info.policies.map((p) => [p.id, p.remaining])).toEqual([['b', 3]]);
  });

  it('conflicting members for one policy keep the most restrictive values', () => {
    const p = only({
      'RateLimit-Policy': '"api";q=100;w=60, "api";q=10;w=1',
      RateLimit: '"api";r=9;t=1, "api";r=0;t=30',
    });
    expect(p).toMatchObject({ quota: 10, windowSeconds: 60, remaining: 0, resetAt: NOW + 30_000 });
  });

  it.each(['-5', '1.5', 'soon', '', '99999999999999999999'])('Retry-After: %j', (value) => {
    expect(parse({ 'Retry-After': value }).retryAt).toBeUndefined();
  });

  it('legacy headers with negative or non-numeric values', () => {
    expect(parse({ 'X-RateLimit-Limit': '-10', 'X-RateLimit-Remaining': 'x' }).policies).toEqual(
      [],
    );
    const p = only({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '3',
      'X-RateLimit-Reset': '-1',
    });
    expect(p).toMatchObject({ quota: 10, remaining: 3, resetAt: undefined });
  });
});

describe('draft-6 and draft-7 (sluice, express-rate-limit)', () => {
  it('draft-7: RateLimit: limit=10, remaining=9, reset=1 and RateLimit-Policy: 10;w=1', () => {
    const info = parse({
      'RateLimit-Policy': '10;w=1',
      RateLimit: 'limit=10, remaining=9, reset=1',
    });
    expect(info.style).toBe('draft-7');
    expect(info.policies[0]).toMatchObject({
      quota: 10,
      windowSeconds: 1,
      remaining: 9,
      resetAt: NOW + 1000,
    });
  });

  it('draft-6: RateLimit-Limit / -Remaining / -Reset, and the older RateLimit-Limit: 10, 10;w=1', () => {
    const headers = {
      'RateLimit-Policy': '10;w=1, 1000;w=3600',
      'RateLimit-Limit': '10',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
    };
    const info = parse(headers);
    expect(info.style).toBe('draft-6');
    expect(info.policies[0]).toMatchObject({
      quota: 10,
      windowSeconds: 1,
      remaining: 0,
      resetAt: NOW + 1000,
    });
    expect(only({ ...headers, 'RateLimit-Limit': '10, 10;w=1' }).quota).toBe(10);
  });

  it('the most recent header style on a response wins (draft-8 over legacy)', () => {
    const info = parse({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '5',
      'RateLimit-Policy': '"api";q=10;w=1',
      RateLimit: '"api";r=4;t=1',
    });
    expect(info.style).toBe('draft-8');
    expect(info.policies.map((p) => p.remaining)).toEqual([4]);
  });
});

describe('real servers', () => {
  it('GitHub: X-RateLimit-Reset in epoch seconds, X-RateLimit-Resource as the policy name', () => {
    const p = only({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4987',
      'x-ratelimit-reset': '1767272400',
      'x-ratelimit-used': '13',
      'x-ratelimit-resource': 'core',
    });
    expect(p).toMatchObject({
      name: 'core',
      quota: 5000,
      remaining: 4987,
      resetAt: 1767272400_000,
    });
  });

  it('a reset in seconds from now (a value far below any epoch)', () => {
    const p = only({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '42',
    });
    expect(p.resetAt).toBe(NOW + 42_000);
  });

  it('a reset in epoch ms', () => {
    const p = only({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(NOW + 5000),
    });
    expect(p.resetAt).toBe(NOW + 5000);
  });

  it('Discord: fractional X-RateLimit-Reset-After in seconds', () => {
    const p = only({
      'X-RateLimit-Limit': '5',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1470173023.123',
      'X-RateLimit-Reset-After': '1.5',
    });
    expect(p.resetAt).toBe(NOW + 1500);
  });

  it("Retry-After as an HTTP date, read against the answer's Date (clock skew cancels out)", () => {
    const info = parse({
      Date: 'Wed, 21 Oct 2015 07:28:00 GMT',
      'Retry-After': 'Wed, 21 Oct 2015 07:28:30 GMT',
    });
    expect(info.retryAt).toBe(NOW + 30_000);
  });

  it("Retry-After as an HTTP date without Date: against the caller's clock; a past date is now", () => {
    expect(parse({ 'Retry-After': new Date(NOW + 7000).toUTCString() }).retryAt).toBe(NOW + 6750);
    expect(parse({ 'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT' }).retryAt).toBe(NOW);
  });

  it('an answer with no rate-limit header', () => {
    expect(parse({ 'Content-Type': 'text/plain' })).toEqual({
      style: undefined,
      policies: [],
      retryAt: undefined,
    });
  });
});
