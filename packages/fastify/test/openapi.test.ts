import swagger from '@fastify/swagger';
import { EPOCH } from '@sluice/test-kit';
import Fastify, { type FastifyInstance } from 'fastify';
import { MemoryStore, rateLimit, SluiceConfigError, Throttle } from '../src/index.js';

type Spec = {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
};
type Response = {
  description: string;
  headers?: Record<string, { schema: Record<string, unknown>; description?: string }>;
  content?: Record<string, { schema: { required?: string[]; properties?: object } }>;
};

/** The headers every response has whatever sluice does (inject and Fastify's own). */
const PLAIN = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);
const sent = (headers: Record<string, unknown>) =>
  Object.keys(headers)
    .map((h) => h.toLowerCase())
    .filter((h) => !PLAIN.has(h))
    .sort();
const named = (r: Response | undefined) =>
  Object.keys(r?.headers ?? {})
    .map((h) => h.toLowerCase())
    .sort();

/** A real app: @fastify/swagger, then sluice with `options`, then `routes`. */
async function specOf(
  options: Record<string, unknown>,
  routes: (app: FastifyInstance) => void,
): Promise<{ app: FastifyInstance; spec: Spec }> {
  const app = Fastify();
  await app.register(swagger, { openapi: { info: { title: 't', version: '1' } } });
  await app.register(rateLimit, {
    limit: 'throttle:1,1',
    store: new MemoryStore(),
    clock: () => EPOCH,
    ...options,
  });
  routes(app);
  await app.ready();
  return { app, spec: app.swagger() as unknown as Spec };
}

function basicRoutes(app: FastifyInstance): void {
  app.get('/limited', async () => ({ ok: true, nested: { list: [1, 2] } }));
  app.get('/free', { config: { rateLimit: false } }, async () => ({ ok: true }));
  app.get(
    '/typed',
    {
      schema: {
        response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      },
    },
    async () => ({ ok: true, hidden: 'dropped by its own schema' }),
  );
}

describe('@sluice/fastify openapi: true, in @fastify/swagger’s generated spec', () => {
  it('a limited route documents the 429, its headers and body, and the headers of its 200', async () => {
    const { app, spec } = await specOf(
      { openapi: true, headers: ['legacy', 'draft-8'] },
      basicRoutes,
    );
    const responses = spec.paths['/limited']!.get!.responses;
    const denied = responses['429']!;
    expect(named(denied)).toEqual(
      [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit-Policy',
        'RateLimit',
        'Retry-After',
      ]
        .map((h) => h.toLowerCase())
        .sort(),
    );
    expect(denied.headers!['Retry-After']!.schema).toMatchObject({ type: 'integer' });
    expect(named(responses['200'])).toEqual(named(denied).filter((h) => h !== 'retry-after'));
    // What a real request sends: the same names, allowed and denied.
    const ok = await app.inject({ url: '/limited' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true, nested: { list: [1, 2] } }); // serialization unchanged
    expect(sent(ok.headers)).toEqual(named(responses['200']));
    const no = await app.inject({ url: '/limited' });
    expect(no.statusCode).toBe(429);
    expect(sent(no.headers)).toEqual(named(denied));
    const schema = denied.content!['application/json']!.schema;
    expect(Object.keys(no.json()).sort()).toEqual([...schema.required!].sort());
    expect(Object.keys(schema.properties!).sort()).toEqual(Object.keys(no.json()).sort());
    await app.close();
  });

  it('a route that is not limited gets neither the 429 nor the headers', async () => {
    const { app, spec } = await specOf({ openapi: true }, basicRoutes);
    const free = spec.paths['/free']!.get!.responses;
    expect(free['429']).toBeUndefined();
    expect(free['200']?.headers).toBeUndefined();
    const res = await app.inject({ url: '/free' });
    expect(sent(res.headers)).toEqual([]);
    await app.close();
  });

  it('a route’s own response schema keeps its body and gains the headers', async () => {
    const { app, spec } = await specOf({ openapi: true }, basicRoutes);
    const typed = spec.paths['/typed']!.get!.responses;
    expect(typed['200']!.content!['application/json']!.schema.properties).toEqual({
      ok: { type: 'boolean' },
    });
    expect(named(typed['200'])).toEqual([
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ]);
    expect((await app.inject({ url: '/typed' })).json()).toEqual({ ok: true });
    await app.close();
  });

  it('global: false: only config.rateLimit, app.rateLimit() and a route’s own 429 as given', async () => {
    const own429 = { description: 'mine', type: 'object', properties: { why: { type: 'string' } } };
    const { app, spec } = await specOf(
      { openapi: true, global: false, headers: 'draft-7' },
      (a) => {
        a.get('/plain', async () => 'x');
        a.get('/config', { config: { rateLimit: 'throttle:1,1' } }, async () => 'x');
        a.get('/hook', { onRequest: a.rateLimit('throttle:1,1') }, async () => 'x');
        a.get(
          '/mine',
          { config: { rateLimit: 'throttle:1,1' }, schema: { response: { 429: own429 } } },
          async () => 'x',
        );
      },
    );
    expect(spec.paths['/plain']!.get!.responses['429']).toBeUndefined();
    for (const path of ['/config', '/hook']) {
      const denied = spec.paths[path]!.get!.responses['429']!;
      expect(named(denied)).toEqual(['ratelimit', 'ratelimit-policy', 'retry-after']);
      await app.inject({ url: path });
      expect(sent((await app.inject({ url: path })).headers)).toEqual(named(denied));
    }
    expect(spec.paths['/mine']!.get!.responses['429']!.description).toBe('mine');
    await app.close();
  });

  it("body: 'problem' documents application/problem+json; errorResponseBuilder no body schema", async () => {
    const problem = await specOf({ openapi: true, body: 'problem' }, basicRoutes);
    const denied = problem.spec.paths['/limited']!.get!.responses['429']!;
    expect(Object.keys(denied.content!)).toEqual(['application/problem+json']);
    await problem.app.inject({ url: '/limited' });
    const no = await problem.app.inject({ url: '/limited' });
    expect(no.headers['content-type']).toMatch(/^application\/problem\+json/);
    const schema = denied.content!['application/problem+json']!.schema;
    expect(Object.keys(no.json()).sort()).toEqual([...schema.required!].sort());
    await problem.app.close();

    const built = await specOf(
      { openapi: true, errorResponseBuilder: () => ({ code: 'SLOW_DOWN', extra: 1 }) },
      basicRoutes,
    );
    const custom = built.spec.paths['/limited']!.get!.responses['429']!;
    expect(custom.content?.['application/json']?.schema.properties).toBeUndefined();
    await built.app.inject({ url: '/limited' });
    // The builder's body is not cut to sluice's schema.
    expect((await built.app.inject({ url: '/limited' })).json()).toEqual({
      code: 'SLOW_DOWN',
      extra: 1,
    });
    await built.app.close();
  });

  it('a @Throttle handler (a bound copy too) is documented; its limit is what a request meets', async () => {
    class Users {
      @Throttle('throttle:1,1', { headers: 'draft-6' })
      async show() {
        return { id: 1 };
      }
    }
    const users = new Users();
    const { app, spec } = await specOf({ openapi: true, global: false }, (a) => {
      a.get('/users', users.show.bind(users));
      a.get('/plain', async () => 'x');
    });
    const denied = spec.paths['/users']!.get!.responses['429']!;
    expect(named(denied)).toEqual([
      'ratelimit-limit',
      'ratelimit-policy',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
    ]);
    await app.inject({ url: '/users' });
    expect(sent((await app.inject({ url: '/users' })).headers)).toEqual(named(denied));
    expect(spec.paths['/plain']!.get!.responses['429']).toBeUndefined();
    await app.close();
  });

  it('off by default; openapi must be a boolean', async () => {
    const { app, spec } = await specOf({}, basicRoutes);
    expect(spec.paths['/limited']!.get!.responses['429']).toBeUndefined();
    await app.close();
    const bad = Fastify();
    await expect(bad.register(rateLimit, { openapi: 'yes' as never })).rejects.toThrow(
      SluiceConfigError,
    );
    await expect(Fastify().register(rateLimit, { openapi: 'yes' as never })).rejects.toThrow(
      /openapi/,
    );
  });
});
