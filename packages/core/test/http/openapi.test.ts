import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict, openApiOfLimiters } from '../../src/http/index.js';
import {
  type HeadersOption,
  type HttpLimitOptions,
  Limit,
  MemoryStore,
  openApiResponses,
  type RequestView,
  SluiceConfigError,
} from '../../src/index.js';

/** One request (its own `raw`: a request is charged once). */
const view = (): RequestView => ({
  method: 'GET',
  route: 'GET /a',
  ip: '10.0.0.1',
  headers: {},
  raw: {},
});

/** The header names a real limiter with `options` sends: allowed, then denied. */
function sentNames(options: HttpLimitOptions): [string[], string[], HttpVerdict] {
  const limiter = new HttpLimiter({
    store: new MemoryStore(),
    clock: () => EPOCH,
    limit: 'throttle:1,1',
    ...options,
  });
  const names = (v: HttpVerdict) => [...new Set(v.headers.map(([n]) => n))].sort();
  const ok = limiter.check(view()) as HttpVerdict;
  const no = limiter.check(view()) as HttpVerdict;
  expect([ok.allowed, no.allowed]).toEqual([true, false]);
  return [names(ok), names(no), no];
}

const STYLES: HeadersOption[] = [
  'legacy',
  'draft-6',
  'draft-7',
  'draft-8',
  'draft-11',
  ['legacy', 'draft-8'],
  ['draft-6', 'draft-7'],
  false,
];

describe('openApiResponses: the headers named are the headers sent', () => {
  it.each(STYLES.map((s) => [JSON.stringify(s), s]))('headers %s', (_, headers) => {
    const [allowed, denied] = sentNames({ headers });
    const spec = openApiResponses({ headers });
    expect(Object.keys(spec.headers).sort()).toEqual(allowed);
    expect(Object.keys(spec.responses)).toEqual(['429']);
    expect(Object.keys(spec.responses['429']!.headers).sort()).toEqual(denied);
  });

  it('the JSON body schema names the fields of the body sent; problem bodies too', () => {
    for (const body of ['json', 'problem'] as const) {
      const [, , no] = sentNames({ body, statusCode: 503 });
      const response = openApiResponses({ body, statusCode: 503 }).responses['503']!;
      const media = body === 'json' ? 'application/json' : 'application/problem+json';
      expect(no.contentType?.startsWith(media)).toBe(true);
      const schema = response.content![media]!.schema as { required: string[]; properties: object };
      const sent = Object.keys(JSON.parse(no.body as string)).sort();
      expect([...schema.required].sort()).toEqual(sent);
      expect(Object.keys(schema.properties).sort()).toEqual(sent);
      expect(response.description).toMatch(/^Service Unavailable: /);
    }
  });

  it('a message function or an adapter-written body: no body schema; shadow: no denial', () => {
    expect(openApiResponses({ message: () => 'no' }).responses['429']!.content).toBeUndefined();
    expect(openApiResponses({ message: 'slow down' }).responses['429']!.content).toBeDefined();
    const shadow = openApiResponses({ mode: 'shadow' });
    expect([Object.keys(shadow.responses), Object.keys(shadow.headers).length]).toEqual([[], 3]);
  });

  it('Limit.adaptive adds the 503 its denials answer with', () => {
    const spec = openApiResponses({ limit: [Limit.perMinute(5), Limit.adaptive()] });
    expect(Object.keys(spec.responses).sort()).toEqual(['429', '503']);
  });

  it('openApiOfLimiters merges a route’s limiters: every header, both media types', () => {
    const a = new HttpLimiter({ headers: 'legacy' });
    const b = new HttpLimiter({ headers: 'draft-8', body: 'problem' });
    const spec = openApiOfLimiters([{ limiter: a }, { limiter: b }]);
    expect(Object.keys(spec.headers).sort()).toEqual([
      'RateLimit',
      'RateLimit-Policy',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    const denied = spec.responses['429']!;
    expect(Object.keys(denied.content!).sort()).toEqual([
      'application/json',
      'application/problem+json',
    ]);
    expect(Object.keys(denied.headers)).toContain('Retry-After');
    const custom = openApiOfLimiters([{ limiter: a }, { limiter: b, customBody: true }]);
    expect(custom.responses['429']!.content).toBeUndefined();
    // The first description is not changed by merging.
    expect(Object.keys(openApiOfLimiters([{ limiter: a }]).responses['429']!.content!)).toEqual([
      'application/json',
    ]);
  });

  it('bad options throw as the limit would, naming them', () => {
    expect(() => openApiResponses({ headers: 'draft-99' as never })).toThrow(SluiceConfigError);
    expect(() => openApiResponses({ headres: 'legacy' } as never)).toThrow(/headres/);
  });
});
