import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  RateLimitedError as CoreRateLimitedError,
  Limit,
  LimitOperations,
  MemoryStore,
  ThrottleRegistry,
} from '@sluice/core';
import {
  RateLimitedError,
  sluiceErrorFormatter,
  sluiceResponseMeta,
  sluiceTrpc,
} from '@sluice/trpc';
import { initTRPC, TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';

interface Ctx {
  user?: { id: string };
  req?: IncomingMessage;
}

const fixedClock = () => 1_700_000_000_000;

function router() {
  const t = initTRPC.context<Ctx>().create({ errorFormatter: sluiceErrorFormatter });
  const registry = new ThrottleRegistry().define('api', (req) =>
    req.userId === 'vip' ? Limit.perMinute(5) : Limit.perMinute(2),
  );
  const store = new MemoryStore();
  const limited = t.procedure.use(sluiceTrpc(Limit.perMinute(3), { store, clock: fixedClock }));
  const named = t.procedure.use(
    sluiceTrpc('throttle:api', {
      store,
      clock: fixedClock,
      throttles: registry,
      perProcedure: true,
    }),
  );
  return t.router({
    hello: limited.query(() => 'hi'),
    other: limited.query(() => 'other'),
    api: named.query(() => 'api'),
  });
}

/** One call through an adapter: HTTP status, Retry-After, and the tRPC body. */
type Call = (
  path: string,
  user?: string,
) => Promise<{ status: number; retryAfter: string | null; body: any }>;

function fetchAdapter(): Call {
  const appRouter = router();
  return async (path, user) => {
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request(`http://x/trpc/${path}`),
      router: appRouter,
      createContext: () => ({ user: user === undefined ? undefined : { id: user } }),
      responseMeta: sluiceResponseMeta,
    });
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: await res.json(),
    };
  };
}

async function standaloneAdapter(): Promise<{ call: Call; close: () => Promise<void> }> {
  const server = createHTTPServer({
    router: router(),
    createContext: ({ req }) => {
      const user = req.headers['x-user'];
      return { req, user: typeof user === 'string' ? { id: user } : undefined };
    },
    responseMeta: sluiceResponseMeta,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    call: async (path, user) => {
      const res = await fetch(`http://127.0.0.1:${port}/${path}`, {
        headers: user === undefined ? {} : { 'x-user': user },
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: await res.json(),
      };
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const adapters: [string, () => Promise<{ call: Call; close: () => Promise<void> }>][] = [
  ['fetch adapter', async () => ({ call: fetchAdapter(), close: async () => {} })],
  ['standalone adapter', standaloneAdapter],
];

describe.each(adapters)('sluiceTrpc through the %s', (_name, make) => {
  let call: Call;
  let close: () => Promise<void>;
  beforeEach(async () => ({ call, close } = await make()));
  afterEach(() => close());

  it('allows calls within the limit, across the procedures of the middleware', async () => {
    const answers = [
      await call('hello', 'u1'),
      await call('other', 'u1'),
      await call('hello', 'u1'),
    ];
    expect(answers.map((a) => [a.status, a.body.result.data])).toEqual([
      [200, 'hi'],
      [200, 'other'],
      [200, 'hi'],
    ]);
  });

  it('denies the call over the limit: TOO_MANY_REQUESTS, 429, Retry-After and data.retryAfter', async () => {
    for (let i = 0; i < 3; i++) await call('hello', 'u1');
    const denied = await call('hello', 'u1');
    expect(denied.status).toBe(429);
    expect(denied.retryAfter).toBe('20'); // 3/min: one unit per 20 s
    expect(denied.body.error.data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      httpStatus: 429,
      retryAfter: 20,
    });
    expect(denied.body.error.message).toBe('Rate limit exceeded, retry in 20 seconds');
    // another user is not affected
    expect((await call('hello', 'u2')).status).toBe(200);
  });

  it('runs named limiters (throttle:api), per procedure, per user', async () => {
    const vip = [];
    for (let i = 0; i < 6; i++) vip.push((await call('api', 'vip')).status);
    expect(vip).toEqual([200, 200, 200, 200, 200, 429]);
    const plain = [];
    for (let i = 0; i < 3; i++) plain.push((await call('api', 'pleb')).status);
    expect(plain).toEqual([200, 200, 429]);
    // perProcedure: 'api' has its own budget; 'hello' (another middleware) too
    expect((await call('hello', 'pleb')).status).toBe(200);
  });
});

describe('sluiceTrpc', () => {
  it('a call waiting will never admit (an operator deny) gets no Retry-After, never -1', async () => {
    const store = new MemoryStore();
    const ops = new LimitOperations({ store });
    await ops.deny({ key: 'evil' });
    const t = initTRPC.context<Ctx>().create({ errorFormatter: sluiceErrorFormatter });
    const mw = sluiceTrpc(Limit.perMinute(3), { store, key: () => 'evil', clock: fixedClock });
    const appRouter = t.router({ hello: t.procedure.use(mw).query(() => 'hi') });
    const res = await fetchRequestHandler({
      endpoint: '/trpc',
      req: new Request('http://x/trpc/hello'),
      router: appRouter,
      createContext: () => ({}),
      responseMeta: sluiceResponseMeta,
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const body = (await res.json()) as any;
    expect(body.error.data.code).toBe('TOO_MANY_REQUESTS');
    expect(body.error.data.retryAfter).toBeUndefined();
    expect(body.error.message).not.toMatch(/-1/);
  });

  it('throws a TRPCError whose cause carries retryAfter, when called directly', async () => {
    const mw = sluiceTrpc(Limit.perMinute(1), { key: () => 'k', clock: fixedClock });
    const next = async () => 'ok';
    await expect(mw({ ctx: {}, path: 'p', type: 'query', next })).resolves.toBe('ok');
    const error = await mw({ ctx: {}, path: 'p', type: 'query', next }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('TOO_MANY_REQUESTS');
    expect((error as TRPCError).cause).toBeInstanceOf(RateLimitedError);
    expect(((error as TRPCError).cause as RateLimitedError).retryAfter).toBe(60);
  });

  it("the cause is @sluice/core's one RateLimitedError (the server refused), with every decision", async () => {
    expect(RateLimitedError).toBe(CoreRateLimitedError);
    const mw = sluiceTrpc([Limit.perMinute(10), Limit.perSecond(1)], {
      key: () => 'both',
      clock: fixedClock,
    });
    const next = async () => 'ok';
    await mw({ ctx: {}, path: 'p', type: 'query', next });
    const error = await mw({ ctx: {}, path: 'p', type: 'query', next }).catch((e: unknown) => e);
    const cause = (error as TRPCError).cause;
    expect(cause).toBeInstanceOf(CoreRateLimitedError);
    const limited = cause as CoreRateLimitedError;
    // The per-second limit refused; the per-minute one admitted: both decisions, in order.
    expect(limited.decisions.map((d) => d.allowed)).toEqual([true, false]);
    expect(limited.decision).toBe(limited.decisions[1]);
    expect(limited.retryAfterMs).toBe(limited.decision.retryAfterMs);
    expect(limited.retryAfter).toBe(Math.max(1, Math.ceil(limited.retryAfterMs / 1000)));
  });

  it('fails closed without a subject, and refuses bad options at creation', async () => {
    const mw = sluiceTrpc('10/s');
    await expect(
      mw({ ctx: {}, path: 'p', type: 'query', next: async () => 'ok' }),
    ).rejects.toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
    });
    expect(() => sluiceTrpc('10/s', { keyGenerator: () => 'x' } as never)).toThrow(/keyGenerator/);
    expect(() => sluiceTrpc('throttle:missing')).toThrow(
      expect.objectContaining({ option: 'limit' }),
    );
  });
});
