import { EPOCH } from '@sluice/test-kit';
import Fastify, { type FastifyError } from 'fastify';
import { MemoryStore, rateLimit, SluiceConfigError } from '../src/index.js';

/** An app with a real setErrorHandler that records what reaches it and answers 418 or its own 429. */
async function appWith(options: Record<string, unknown>) {
  const seen: (FastifyError & { verdict?: unknown; body?: unknown })[] = [];
  const app = Fastify();
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    seen.push(error);
    reply.code(error.statusCode ?? 500).send({ handledBy: 'app', message: error.message });
  });
  await app.register(rateLimit, {
    limit: 'throttle:1,1',
    store: new MemoryStore(),
    clock: () => EPOCH,
    ...options,
  });
  app.get('/a', async () => ({ ok: true }));
  app.get('/b', { config: { rateLimit: 'throttle:5,1' } }, async () => ({ ok: true }));
  await app.ready();
  return { app, seen };
}

describe("@sluice/fastify errorResponse: a denial through the app's setErrorHandler", () => {
  it("default 'reply': the 429 is sent at once, the app's error handler never sees it", async () => {
    const { app, seen } = await appWith({});
    await app.inject({ url: '/a' });
    const denied = await app.inject({ url: '/a' });
    expect(denied.statusCode).toBe(429);
    expect(denied.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: 'Rate limit exceeded, retry in 60 seconds',
    });
    expect(seen).toEqual([]);
    await app.close();
  });

  it("'error-handler': the app's handler gets an Error with statusCode, message and verdict, headers kept", async () => {
    const { app, seen } = await appWith({ errorResponse: 'error-handler' });
    expect((await app.inject({ url: '/a' })).statusCode).toBe(200);
    const denied = await app.inject({ url: '/a' });
    expect(denied.statusCode).toBe(429);
    expect(denied.json()).toEqual({
      handledBy: 'app',
      message: 'Rate limit exceeded, retry in 60 seconds',
    });
    expect(denied.headers['retry-after']).toBe('60');
    expect(denied.headers['x-ratelimit-remaining']).toBe('0');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(Error);
    expect(seen[0]!.statusCode).toBe(429);
    expect(seen[0]!.verdict).toMatchObject({ allowed: false, statusCode: 429 });
    await app.close();
  });

  it("route limits inherit it from the registration; errorResponseBuilder's value rides on the error", async () => {
    const { app, seen } = await appWith({
      limit: 'throttle:100,1',
      errorResponse: 'error-handler',
      errorResponseBuilder: () => ({ code: 'SLOW_DOWN' }),
      statusCode: 503,
    });
    for (let i = 0; i < 5; i++) await app.inject({ url: '/b' });
    const denied = await app.inject({ url: '/b' });
    expect(denied.statusCode).toBe(503);
    expect(denied.json()).toMatchObject({ handledBy: 'app' });
    expect(seen[0]!.body).toEqual({ code: 'SLOW_DOWN' });
    await app.close();
  });

  it('refuses any other value, naming errorResponse', async () => {
    const app = Fastify();
    await expect(app.register(rateLimit, { errorResponse: 'throw' as never })).rejects.toThrow(
      SluiceConfigError,
    );
    const again = Fastify();
    await expect(again.register(rateLimit, { errorResponse: true as never })).rejects.toThrow(
      /"errorResponse".*'reply' or 'error-handler'/,
    );
  });
});
