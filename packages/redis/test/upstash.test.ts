// RedisStore over an @upstash/redis client, through test-kit's Upstash REST bridge in front
// of a redis-server the test starts (the hosted Upstash service is not tested here): the
// redis-cell vectors with the client's base64 responses and with plain JSON, the HTTP
// requests a batch costs (counted by the bridge), the NOSCRIPT fallback, what a refused
// request's error says (no key text, no token) and clients the store does not take.
import { fixedWindow, gcra, LimitOperations, RateLimiter, SluiceConfigError } from '@sluice/core';
import {
  type RedisProcess,
  replayVector,
  startRedis,
  startUpstashBridge,
  type UpstashBridge,
  vectorRuns,
} from '@sluice/test-kit';
import { Redis } from '@upstash/redis';
import { RedisStore } from '../src/index.js';

let server: RedisProcess;
let bridge: UpstashBridge;

beforeAll(async () => {
  server = await startRedis();
  bridge = await startUpstashBridge(server.port);
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

/**
 * Stores whose HTTP requests a test counts: the operator entries' version check runs once, at
 * the first decision, not again every 5 s (the default syncMs) of a test slowed by a loaded
 * machine, which had counted one request more; and no reply is late (timeoutMs 30 s, not the
 * default 500 ms): on a clean-clone CI run one was, beside Node 22's other files, and the
 * policy's decisions and the breaker's probe that followed counted 107 requests against 100.
 */
const COUNTED = { operations: { syncMs: '1h' }, timeoutMs: 30_000 } as const;

const upstash = (options: { responseEncoding?: false; token?: string } = {}) =>
  new Redis({ url: bridge.url, token: options.token ?? bridge.token, retry: false, ...options });

describe.each([
  { encoding: 'base64 responses (the client default)', responseEncoding: undefined },
  { encoding: 'plain JSON responses (responseEncoding: false)', responseEncoding: false },
] as const)('redis-cell vectors through @upstash/redis, $encoding', ({ responseEncoding }) => {
  it.each(vectorRuns().map((run) => ({ run, label: run.label })))('$label', async ({ run }) => {
    const client = upstash(responseEncoding === false ? { responseEncoding } : {});
    const store = new RedisStore({ client, clock: 'client', timeoutMs: 30_000 });
    const replies = await replayVector(run, store, `vec:${Math.random()}`);
    expect(replies).toEqual(run.steps.map((s) => s.cell));
  });
});

/**
 * `callers` loops, each deciding `each` times in turn (the next decision when the last is
 * answered): `callers` decisions in flight at every moment. Returns the HTTP requests the
 * bridge received meanwhile and the decisions admitted.
 */
async function inFlight(
  limiters: RateLimiter[],
  callers: number,
  each: number,
): Promise<{ requests: number; commands: number; allowed: number }> {
  bridge.resetCounts();
  let allowed = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const limiter = limiters[c % limiters.length]!;
      for (let i = 0; i < each; i++) {
        if ((await limiter.consume(`caller:${c}`)).allowed) allowed++;
      }
    }),
  );
  return { requests: bridge.requests.total, commands: bridge.commands, allowed };
}

/**
 * The version check, and each script run once (a single-key and a batch script per
 * algorithm, each sent as EVAL the first time) before counting.
 */
async function warmUp(limiters: RateLimiter[]): Promise<void> {
  for (const limiter of limiters) {
    await limiter.consume('warm-up:1');
    await Promise.all([limiter.consume('warm-up:2'), limiter.consume('warm-up:3')]);
  }
}

describe('HTTP requests per decision', () => {
  const DECISIONS = 16 * 100;

  it('16 decisions in flight on one limiter: at most 1 HTTP request per 16 decisions', async () => {
    const store = new RedisStore({ client: upstash(), ...COUNTED });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 1000, period: '1s' }), store });
    await warmUp([limiter]);
    const { requests, allowed } = await inFlight([limiter], 16, DECISIONS / 16);
    expect(allowed).toBe(DECISIONS);
    expect(requests).toBeLessThanOrEqual(DECISIONS / 16);
  }, 60_000);

  it('16 in flight over two limiters of different settings (two scripts per turn): still one request per turn, a pipeline', async () => {
    const store = new RedisStore({ client: upstash(), ...COUNTED });
    const a = new RateLimiter({ algorithm: gcra({ rate: 1000, period: '1s' }), store });
    const b = new RateLimiter({
      algorithm: fixedWindow({ limit: 1000, window: '1m' }),
      store,
      prefix: 'b',
    });
    await warmUp([a, b]);
    const { requests, commands, allowed } = await inFlight([a, b], 16, DECISIONS / 16);
    expect(allowed).toBe(DECISIONS);
    expect(requests).toBeLessThanOrEqual(DECISIONS / 16);
    // Each request carried both limiters' scripts: one pipeline, not one request per script.
    expect(commands).toBeGreaterThanOrEqual(2 * requests - 2);
    expect(bridge.requests.pipeline).toBe(requests);
  }, 60_000);
});

describe('scripts', () => {
  it('a new client (a new isolate) decides its first call in 3 HTTP requests: the version check, the operator entries, then the script as EVAL', async () => {
    const store = new RedisStore({ client: upstash(), ...COUNTED });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 5, period: '1m' }), store });
    bridge.resetCounts();
    expect((await limiter.consume(`cold:${Math.random()}`)).remaining).toBe(4);
    expect(bridge.requests.total).toBe(3);
    // From then on by SHA: one request (the entries are checked again every syncMs only).
    bridge.resetCounts();
    expect((await limiter.consume(`cold:${Math.random()}`)).remaining).toBe(4);
    expect(bridge.requests.total).toBe(1);
  });

  it('after SCRIPT FLUSH, EVALSHA answers NOSCRIPT and the script is sent again with EVAL: the decision is made once', async () => {
    const store = new RedisStore({ client: upstash(), ...COUNTED });
    const limiter = new RateLimiter({ algorithm: gcra({ rate: 2, period: '1m' }), store });
    const key = `flush:${Math.random()}`;
    expect((await limiter.consume(key)).remaining).toBe(1);
    await server.cli('SCRIPT', 'FLUSH');
    bridge.resetCounts();
    const decision = await limiter.consume(key);
    expect(decision).toMatchObject({ allowed: true, remaining: 0 });
    // EVALSHA (NOSCRIPT), then EVAL: two requests, the key charged once.
    expect(bridge.requests.total).toBe(2);
    expect((await limiter.consume(key)).allowed).toBe(false);
  });

  it('reset deletes the key over REST', async () => {
    const store = new RedisStore({ client: upstash(), ...COUNTED });
    const limiter = new RateLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), store });
    const key = `reset:${Math.random()}`;
    expect((await limiter.consume(key)).allowed).toBe(true);
    expect((await limiter.consume(key)).allowed).toBe(false);
    await limiter.reset(key);
    expect((await limiter.consume(key)).allowed).toBe(true);
  });
});

describe('prefetch (Node: taken)', () => {
  it('units held in process: 30 decisions on a limit of 20 admit 20, and close() gives back what was not used', async () => {
    const store = new RedisStore({
      client: upstash(),
      prefetch: { units: 8, ttl: '10s' },
      ...COUNTED,
    });
    const algorithm = fixedWindow({ limit: 20, window: '1h' });
    const limiter = new RateLimiter({ algorithm, store, onStoreError: 'deny' });
    const key = `prefetch:${Math.random()}`;
    let allowed = 0;
    for (let i = 0; i < 30; i++) if ((await limiter.consume(key)).allowed) allowed++;
    expect(allowed).toBe(20);
    const key2 = `prefetch:${Math.random()}`;
    expect((await limiter.consume(key2)).allowed).toBe(true);
    await store.close();
    // Only the one decision stays charged in Redis: the units held for key2 went back.
    const plain = new RateLimiter({
      algorithm,
      store: new RedisStore({ client: upstash(), ...COUNTED }),
    });
    const peek = await plain.consume(key2, { cost: 0 });
    expect(peek.remaining).toBe(19);
  }, 30_000);
});

describe('errors', () => {
  it('a request the REST API refuses (a wrong token) fails the call; its error carries neither the key nor the token', async () => {
    const wrong = 'wrong-token-31337';
    const store = new RedisStore({ client: upstash({ token: wrong }), timeoutMs: 5000 });
    const key = 'user-4242-secret-key';
    const error = await Promise.resolve(
      store.consume(key, gcra({ rate: 1, period: '1s' }), 1, Date.now()),
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    const text = `${error!.message}\n${error!.stack}`;
    expect(text).toContain('Unauthorized');
    expect(text).not.toContain('user-4242');
    expect(text).not.toContain(wrong);
  });

  it('an object that looks like no client the store takes: a SluiceConfigError naming client and every client it takes', () => {
    const lookalike = { pipeline: () => undefined, get: () => undefined };
    const error = thrown(() => new RedisStore({ client: lookalike as never }));
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error).toMatchObject({ option: 'client' });
    expect(error.message).toMatch(/@upstash\/redis client \(new Redis\(\{ url, token \}\)\)/);
    expect(error.message).toMatch(/ioredis/);
    expect(error.message).toMatch(/node-redis/);
  });

  it('an @upstash/redis client given as the options: told to pass { client }', () => {
    const error = thrown(() => new RedisStore(upstash() as never));
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error).toMatchObject({ option: 'options' });
    expect(error.message).toContain('an @upstash/redis client');
    expect(error.message).toContain('new RedisStore({ client })');
  });

  it('an @upstash/redis client given as a limiter store: the error names it, never its token', () => {
    const error = thrown(
      () =>
        new RateLimiter({ algorithm: gcra({ rate: 1, period: '1s' }), store: upstash() as never }),
    );
    expect(error).toBeInstanceOf(SluiceConfigError);
    expect(error.message).toContain('an @upstash/redis client');
    expect(error.message).toContain('RedisStore');
    expect(`${error.message}${error.stack}`).not.toContain(bridge.token);
  });
});

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

describe('operator entries over REST (no pub/sub: the version check every syncMs)', () => {
  it("a ban written through one client reaches another client's limiter within syncMs", async () => {
    const writer = new RedisStore({ client: upstash(), clock: 'client', timeoutMs: 30_000 });
    const reader = new RedisStore({
      client: upstash(),
      clock: 'client',
      timeoutMs: 30_000,
      operations: { syncMs: 200 },
    });
    const prefix = `ops${Math.random().toString(36).slice(2, 8)}`;
    const limiter = new RateLimiter({
      algorithm: gcra({ rate: 100, period: '1m' }),
      store: reader,
      prefix,
    });
    try {
      // The first decision loads the (empty) snapshot; it is admitted.
      expect((await limiter.consume('user:7')).allowed).toBe(true);
      await new LimitOperations({ store: writer, prefix }).ban({ key: 'user:7' }, { for: '1h' });
      const deadline = Date.now() + 5_000;
      let allowed = true;
      while (allowed && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        allowed = (await limiter.consume('user:7')).allowed;
      }
      expect(allowed).toBe(false);
      expect((await limiter.consume('user:8')).allowed).toBe(true);
    } finally {
      await writer.close();
      await reader.close();
    }
  }, 30_000);
});
