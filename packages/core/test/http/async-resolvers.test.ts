// Async resolvers in the HTTP limiter: a synchronous resolver on a synchronous store keeps
// the synchronous path (no promise); an async one is awaited; a value of the wrong kind is
// a TypeError naming the resolver, never a key shared by every request.
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { Limit, MemoryStore, type RequestView, ThrottleRegistry } from '../../src/index.js';

function view(over: Partial<RequestView> = {}): RequestView {
  return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
}

const make = (options: ConstructorParameters<typeof HttpLimiter>[0]) =>
  new HttpLimiter({ store: new MemoryStore(), clock: () => EPOCH, ...options });

describe('HttpLimiter: async resolvers', () => {
  it('synchronous resolvers on a MemoryStore answer synchronously', () => {
    const throttles = new ThrottleRegistry().define('api', () => Limit.perMinute(2));
    const limiter = make({
      limit: 'throttle:api',
      throttles,
      key: (req) => req.ip,
      skip: () => false,
    });
    const v = limiter.check(view());
    expect(v).not.toBeInstanceOf(Promise);
    expect((v as HttpVerdict).allowed).toBe(true);
  });

  it('async skip, limit and key are awaited; a promise of true skips', async () => {
    const limiter = make({
      limit: async () => Limit.perMinute(1),
      key: async (req) => String(req.headers['x-user']),
      skip: async (req) => req.headers['x-user'] === 'health',
    });
    const as = (user: string) => view({ headers: { 'x-user': user } });
    const first = limiter.check(as('alice'));
    expect(first).toBeInstanceOf(Promise);
    expect((await first)?.allowed).toBe(true);
    expect((await limiter.check(as('alice')))?.allowed).toBe(false);
    expect((await limiter.check(as('bob')))?.allowed).toBe(true);
    expect(await limiter.check(as('health'))).toBeUndefined();
  });

  it('a key of the wrong kind is a TypeError naming key, synchronous or not', async () => {
    expect(() => make({ key: () => ({}) as never }).check(view())).toThrow(/key option/);
    await expect(make({ key: async () => undefined as never }).check(view())).rejects.toThrow(
      /key option must return a string.*got undefined/,
    );
  });
});
