import { Hono } from 'hono';
import {
  assertRateLimited,
  MemoryStore,
  rateLimit,
  SluiceConfigError,
  throttle,
} from '../src/index.js';

const store = () => new MemoryStore();

describe('assertRateLimited(app): no route left unlimited by a late rateLimit()', () => {
  it('passes when app.use(rateLimit()) comes before the routes, and counts them', () => {
    const app = new Hono();
    app.use(rateLimit({ store: store() }));
    app.get('/a', (c) => c.text('a'));
    app.post('/b', (c) => c.text('b'));
    expect(assertRateLimited(app)).toBe(2);
  });

  it('a rateLimit() registered after the routes: throws naming them, and they really are unlimited', async () => {
    const app = new Hono();
    app.get('/health', (c) => c.text('ok'));
    app.get('/users/:id', (c) => c.text('user'));
    app.use(rateLimit({ limit: '1/min', store: store() }));
    app.get('/late', (c) => c.text('late'));
    expect(() => assertRateLimited(app)).toThrow(SluiceConfigError);
    expect(() => assertRateLimited(app)).toThrow(
      /2 route\(s\) pass no rate limit: GET \/health, GET \/users\/:id\. .*register it before the routes/,
    );
    // What the check says: the early route is served unlimited, the late one is limited.
    const ask = (path: string) =>
      app.fetch(new Request(`http://x${path}`), {
        incoming: { socket: { remoteAddress: '203.0.113.1' } },
      });
    expect([(await ask('/health')).status, (await ask('/health')).status]).toEqual([200, 200]);
    expect([(await ask('/late')).status, (await ask('/late')).status]).toEqual([200, 429]);
  });

  it('a route with its own throttle() is limited even before the global limit; middleware is no route', () => {
    const app = new Hono();
    app.use('*', async (_c, next) => next());
    app.post('/login', throttle('5/min', { store: store() }), (c) => c.text('in'));
    app.use(rateLimit({ store: store() }));
    app.get('/a', (c) => c.text('a'));
    expect(assertRateLimited(app)).toBe(2);
  });

  it('sub-app routes mounted before the limiter are named with their prefix', () => {
    const sub = new Hono();
    sub.get('/:id', (c) => c.text('item'));
    const app = new Hono();
    app.route('/items', sub);
    app.use(rateLimit({ store: store() }));
    expect(() => assertRateLimited(app)).toThrow(/GET \/items\/:id/);
  });

  it('refuses what is not a Hono app, naming app', () => {
    expect(() => assertRateLimited({} as never)).toThrow(/"app"/);
  });
});
