import { metrics as otelMetrics } from '@opentelemetry/api';
import { EPOCH, otelCapture } from '@sluice/test-kit';
import {
  HttpLimiter,
  type HttpVerdict,
  QUOTA_EXCEEDED_TITLE,
  QUOTA_EXCEEDED_TYPE,
} from '../../src/http/index.js';
import {
  type HttpLimitOptions,
  Limit,
  MemoryStore,
  type RequestView,
  SluiceConfigError,
  type Store,
} from '../../src/index.js';

// The operations options in the core: option checks, the draft-9..11 header names, the problem details
// body and the draft-11 header syntax checked against the draft's own examples, shadow
// mode, metrics through the global API, store errors and the lease hook.

function view(over: Partial<RequestView> = {}): RequestView {
  return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
}

function setup(options: HttpLimitOptions = {}) {
  const limiter = new HttpLimiter({ store: new MemoryStore(), clock: () => EPOCH, ...options });
  return { limiter, check: (v: RequestView = view()) => limiter.check(v) as HttpVerdict };
}

const header = (v: HttpVerdict, name: string) => v.headers.filter(([n]) => n === name);

/**
 * A minimal RFC 9651 (Structured Fields) List parser, enough for the ratelimit headers:
 * members are sf-strings or tokens with integer / string / token parameters.
 */
function parseSfList(
  text: string,
): { item: { type: string; value: string }; params: [string, string, string][] }[] {
  const members = text.split(/,\s*/);
  return members.map((m) => {
    const [head, ...params] = m.split(';');
    const item = /^"(.*)"$/.test(head!)
      ? { type: 'string', value: head!.slice(1, -1) }
      : { type: 'token', value: head! };
    return {
      item,
      params: params.map((p) => {
        const [k, v = '?1'] = p.split('=');
        const type = /^-?\d+$/.test(v) ? 'integer' : /^".*"$/.test(v) ? 'string' : 'token';
        return [k!, type, v] as [string, string, string];
      }),
    };
  });
}

describe('the operations options are checked at construction (SluiceConfigError naming them)', () => {
  it.each([
    ['mode', { mode: 'dry-run' }],
    ['mode', { mode: true }],
    ['metrics', { metrics: 'yes' }],
    ['metrics', { metrics: 1 }],
    ['metrics.meterProvider', { metrics: {} }],
    ['metrics.meterProvider', { metrics: { meterProvider: { getMeter: 1 } } }],
    ['body', { body: 'xml' }],
    ['body', { body: 'problem+json' }],
    ['headers', { headers: 'draft-12' }],
    ['headers', { headers: ['draft-11', 'rfc'] }],
  ])('%s: %j', (option, options) => {
    let error: unknown;
    try {
      new HttpLimiter(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect((error as SluiceConfigError).option).toBe(option);
    expect((error as Error).message).toContain(`"${option}"`);
  });

  it('accepts the valid values', () => {
    for (const options of [
      { mode: 'enforce' },
      { mode: 'shadow' },
      { metrics: false },
      { body: 'json' },
      { body: 'problem' },
      { headers: 'draft-9' },
      { headers: 'draft-10' },
      { headers: ['legacy', 'draft-11'] },
    ] as HttpLimitOptions[]) {
      expect(() => new HttpLimiter(options)).not.toThrow();
    }
  });
});

describe("headers 'draft-9', 'draft-10', 'draft-11'", () => {
  it('are sent as draft-8 (the same syntax), once even when several are named', () => {
    const limit = [Limit.perMinute(10).named('burst'), Limit.perDay(1000).named('daily')];
    const expected = setup({ limit, headers: 'draft-8' }).check().headers;
    for (const name of ['draft-9', 'draft-10', 'draft-11'] as const) {
      expect(setup({ limit, headers: name }).check().headers).toEqual(expected);
    }
    const both = setup({ limit, headers: ['draft-8', 'draft-11'] }).check();
    expect(header(both, 'RateLimit')).toHaveLength(1);
    expect(header(both, 'RateLimit-Policy')).toHaveLength(1);
  });

  // The examples of draft-ietf-httpapi-ratelimit-headers-11 (sections "RateLimit-Policy
  // Field" and "RateLimit Field"): a policy named "default", 100 units a 10 s window, and
  // its state, 50 left, back in 30 s. Reproduced from the draft's text as the author knew
  // it (the draft could not be fetched here); the syntax is that of -08 and later.
  const DRAFT_POLICY_EXAMPLE = '"default";q=100;w=10';
  const DRAFT_STATE_EXAMPLE = '"default";r=50;t=30';

  it("matches the draft-11 examples field by field: sf-string name, q/w and r/t integer parameters, in the draft's order", () => {
    const { check } = setup({
      limit: Limit.perSecond(100, 10).named('default'),
      headers: 'draft-11',
      algorithm: 'fixed-window',
    });
    for (let i = 0; i < 49; i++) check();
    const v = check();
    const [[, policy]] = header(v, 'RateLimit-Policy') as [[string, string]];
    const [[, state]] = header(v, 'RateLimit') as [[string, string]];
    expect(policy).toBe(DRAFT_POLICY_EXAMPLE);
    expect(state).toBe('"default";r=50;t=10');
    const ours = [parseSfList(policy), parseSfList(state)];
    const draft = [parseSfList(DRAFT_POLICY_EXAMPLE), parseSfList(DRAFT_STATE_EXAMPLE)];
    for (let h = 0; h < 2; h++) {
      expect(ours[h]!.length).toBe(draft[h]!.length);
      expect(ours[h]![0]!.item).toEqual(draft[h]![0]!.item); // { type: 'string', value: 'default' }
      // the same parameter keys, in the same order, each an sf-integer
      expect(ours[h]![0]!.params.map(([k, type]) => [k, type])).toEqual(
        draft[h]![0]!.params.map(([k, type]) => [k, type]),
      );
    }
    expect(ours[0]![0]!.params).toEqual([
      ['q', 'integer', '100'],
      ['w', 'integer', '10'],
    ]);
  });
});

describe("body: 'problem' (draft-11 Quota Exceeded, RFC 9457)", () => {
  // The draft's Quota Exceeded example body (section "Problem Types"), as the author knew it.
  const DRAFT_PROBLEM_EXAMPLE = {
    type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
    title: 'Request cannot be satisfied as assigned quota has been exceeded',
    'violated-policies': ['default'],
  };

  it('answers application/problem+json with type, title, status, detail and violated-policies, field by field', () => {
    const { check } = setup({
      limit: [Limit.perMinute(2).named('default'), Limit.perHour(100).named('hourly')],
      body: 'problem',
      headers: 'draft-11',
    });
    check();
    check();
    const denied = check();
    expect(denied.allowed).toBe(false);
    expect(denied.statusCode).toBe(429);
    expect(denied.contentType).toBe('application/problem+json; charset=utf-8');
    const body = JSON.parse(denied.body as string) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['type', 'title', 'status', 'detail', 'violated-policies']);
    // every member of the draft's example, with the same value and JSON type
    for (const [name, value] of Object.entries(DRAFT_PROBLEM_EXAMPLE)) {
      expect([name, typeof body[name], Array.isArray(body[name])]).toEqual([
        name,
        typeof value,
        Array.isArray(value),
      ]);
      expect(body[name]).toEqual(value);
    }
    expect(body.type).toBe(QUOTA_EXCEEDED_TYPE);
    expect(body.title).toBe(QUOTA_EXCEEDED_TITLE);
    // RFC 9457's own members
    expect(body.status).toBe(429);
    expect(body.detail).toBe('Rate limit exceeded, retry in 30 seconds');
  });

  it('uses the message option as detail and statusCode as status; a message function still replaces the body', () => {
    const a = setup({
      limit: 'throttle:1,1',
      body: 'problem',
      message: 'slow down',
      statusCode: 503,
    });
    a.check();
    const denied = a.check();
    expect(JSON.parse(denied.body as string)).toMatchObject({
      status: 503,
      detail: 'slow down',
      'violated-policies': ['1-per-60000ms'],
    });
    const b = setup({ limit: 'throttle:1,1', body: 'problem', message: () => ({ custom: true }) });
    b.check();
    const custom = b.check();
    expect(custom.body).toEqual({ custom: true });
    expect(custom.contentType).toBe('application/json; charset=utf-8');
  });
});

describe("mode: 'shadow'", () => {
  it('charges and reports as usual but admits; onLimited learns { shadow: true }, enforcing { shadow: false }', () => {
    const calls: boolean[] = [];
    const onLimited: HttpLimitOptions['onLimited'] = (_req, _d, info) => calls.push(info.shadow);
    const shadow = setup({ limit: 'throttle:2,1', mode: 'shadow', onLimited });
    const enforce = setup({ limit: 'throttle:2,1', onLimited });
    const s = [shadow.check(), shadow.check(), shadow.check()];
    const e = [enforce.check(), enforce.check(), enforce.check()];
    expect(s.map((v) => v.allowed)).toEqual([true, true, true]);
    expect(e.map((v) => v.allowed)).toEqual([true, true, false]);
    expect(s.map((v) => v.decision)).toEqual(e.map((v) => v.decision));
    expect(s[2]!.statusCode).toBe(200);
    expect(s[2]!.body).toBeUndefined();
    expect(header(s[2]!, 'Retry-After')).toEqual([]);
    expect(header(s[2]!, 'X-RateLimit-Remaining')).toEqual([['X-RateLimit-Remaining', '0']]);
    expect(calls).toEqual([true, false]);
  });
});

describe('metrics', () => {
  afterEach(() => otelMetrics.disable());

  it('metrics: true records on the global meter provider of @opentelemetry/api', async () => {
    const otel = otelCapture();
    otelMetrics.setGlobalMeterProvider(otel.meterProvider);
    const { check } = setup({ limit: Limit.perMinute(1).named('global-api'), metrics: true });
    check();
    check();
    const m = await otel.read();
    expect(m.requests).toEqual({ 'global-api|allowed': 1, 'global-api|limited': 1 });
    expect(m.storeDurations.count).toBe(2);
    await otel.shutdown();
  });

  it('counts decisions made by onStoreError while the store fails as store_error', async () => {
    const otel = otelCapture();
    const failing: Store = {
      consume: () => Promise.reject(new Error('down')),
      reset: () => undefined,
    };
    const limiter = new HttpLimiter({
      store: failing,
      limit: Limit.perMinute(5).named('redis-backed'),
      onStoreError: 'allow',
      logger: { warn: () => undefined },
      metrics: { meterProvider: otel.meterProvider },
    });
    for (let i = 0; i < 3; i++) expect((await limiter.check(view()))!.allowed).toBe(true);
    const m = await otel.read();
    expect(m.requests).toEqual({ 'redis-backed|store_error': 3 });
    await otel.shutdown();
  });

  it('two limiters with the same limit name add up in one series; the lease hook feeds sluice.leases', async () => {
    const otel = otelCapture();
    const options = {
      limit: Limit.perMinute(10).named('shared'),
      metrics: { meterProvider: otel.meterProvider },
    };
    setup(options).check();
    setup(options).check();
    const { limiter } = setup(options);
    limiter.metrics!.lease('exports', 1);
    limiter.metrics!.lease('exports', 1);
    limiter.metrics!.lease('exports', -1);
    const m = await otel.read();
    expect(m.requests).toEqual({ 'shared|allowed': 2 });
    expect(m.leases).toEqual({ exports: 1 });
    expect(m.units['sluice.leases']).toBe('{lease}');
    await otel.shutdown();
  });

  it('without metrics nothing is loaded or recorded; metrics: true without @opentelemetry/api warns once and records nothing', () => {
    expect(setup().limiter.metrics).toBeUndefined();
    jest.isolateModules(() => {
      jest.doMock('@opentelemetry/api', () => {
        throw new Error("Cannot find module '@opentelemetry/api'");
      });
      jest.doMock('node:module', () => ({
        createRequire: () => () => {
          throw new Error("Cannot find module '@opentelemetry/api'");
        },
      }));
      const isolated =
        require('../../src/http/index.js') as typeof import('../../src/http/index.js');
      const { loadOpenTelemetryApi } =
        require('../../src/http/metrics/otel-loader.js') as typeof import('../../src/http/metrics/otel-loader.js');
      expect(loadOpenTelemetryApi()).toBeUndefined();
      const warnings: string[] = [];
      const logger = { warn: (m: string) => warnings.push(m) };
      const a = new isolated.HttpLimiter({ metrics: true, logger });
      const b = new isolated.HttpLimiter({ metrics: true, logger });
      expect([a.metrics, b.metrics]).toEqual([undefined, undefined]);
      expect(warnings).toEqual([
        'sluice: metrics: true but @opentelemetry/api is not installed; nothing is recorded',
      ]);
      expect(a.check(view())).toMatchObject({ allowed: true });
    });
  });
});
