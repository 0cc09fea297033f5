// Operator entries through the HTTP limiter itself (HttpLimiter.check): inspect reads a
// subject's keys per route seen, an override narrowed to a limit name changes that limit
// only, the key option's answer is a { key } subject, top counts denials by subject, and
// entries expire by the limiter's clock.
import { EPOCH } from '@sluice/test-kit';
import { HttpLimiter, type HttpVerdict } from '../../src/http/index.js';
import { Limit, LimitOperations, MemoryStore, type RequestView } from '../../src/index.js';
import { ProtocolLimiter, type ProtocolVerdict } from '../../src/protocol-api.js';

function view(over: Partial<RequestView> = {}): RequestView {
  return { method: 'GET', route: 'GET /a', ip: '10.0.0.1', headers: {}, raw: {}, ...over };
}

function setup(options: ConstructorParameters<typeof HttpLimiter>[0]) {
  const time = { now: EPOCH };
  const store = new MemoryStore();
  const clock = () => time.now;
  const limiter = new HttpLimiter({ store, clock, ...options });
  const ops = new LimitOperations({ store, clock });
  const check = (over: Partial<RequestView> = {}) => limiter.check(view(over)) as HttpVerdict;
  return { time, limiter, ops, check };
}

describe('operations through HttpLimiter', () => {
  it('inspect: per route seen, remaining and reset of a user; blockedUntil of a ban', async () => {
    const { ops, check } = setup({ limit: Limit.perMinute(5).named('api') });
    check({ userId: 'u1' });
    check({ userId: 'u1' });
    check({ userId: 'u1', route: 'GET /b' });
    const seen = await ops.inspect({ user: 'u1' });
    expect(seen.limits).toEqual([
      { name: 'api', key: 'sl:api:GET /a:user:u1', remaining: 3, limit: 5, resetMs: 24_000 },
      { name: 'api', key: 'sl:api:GET /b:user:u1', remaining: 4, limit: 5, resetMs: 12_000 },
    ]);
    await ops.ban({ user: 'u1' }, { for: '2m' });
    expect((await ops.inspect({ user: 'u1' })).blockedUntil).toBe(EPOCH + 120_000);
  });

  it('an override narrowed to one name changes that limit only; the key option answer is a { key } subject', async () => {
    const { ops, check } = setup({
      limit: [Limit.perMinute(2).named('small'), Limit.perMinute(10).named('big')],
      key: (req) => `tenant-${req.headers['x-tenant']}`,
    });
    await ops.override({ key: 'tenant-acme' }, '20/1m', { for: '1h', name: 'big' });
    const v = check({ headers: { 'x-tenant': 'acme' } });
    expect(v.decisions.map((d) => d.limit)).toEqual([2, 20]);
    expect(check({ headers: { 'x-tenant': 'other' } }).decisions.map((d) => d.limit)).toEqual([
      2, 10,
    ]);
    await ops.deny({ key: 'tenant-evil' });
    expect(check({ headers: { 'x-tenant': 'evil' } }).statusCode).toBe(403);
  });

  it('top counts denials by subject; an entry ends by the limiter clock', async () => {
    const { time, ops, check } = setup({ limit: Limit.perMinute(1) });
    await ops.ban({ ip: '10.0.0.9' }, { for: '10s' });
    for (let i = 0; i < 3; i++) expect(check({ ip: '10.0.0.9' }).statusCode).toBe(429);
    check({ ip: '10.0.0.1' });
    expect(check({ ip: '10.0.0.1' }).allowed).toBe(false);
    expect(ops.top(5, { ids: true })).toEqual([
      { id: 'ip:10.0.0.9', count: 3, error: 0 },
      { id: 'ip:10.0.0.1', count: 1, error: 0 },
    ]);
    time.now += 10_000;
    expect(check({ ip: '10.0.0.9' }).allowed).toBe(true);
  });
});

describe('operations and shadow mode', () => {
  it("a limiter in mode 'shadow' still enforces an operator's ban and deny (limits stay shadowed)", async () => {
    const { ops, check } = setup({ limit: Limit.perMinute(1), mode: 'shadow' });
    expect(check().allowed).toBe(true);
    expect(check().allowed).toBe(true); // over the limit, shadowed
    await ops.ban({ ip: '10.0.0.1' }, { for: '1m' });
    expect(check().statusCode).toBe(429);
    await ops.deny({ ip: '10.0.0.2' });
    expect(check({ ip: '10.0.0.2' }).statusCode).toBe(403);
  });
});

describe('operations through ProtocolLimiter (GraphQL, WebSockets, tRPC)', () => {
  it('allow passes unlimited, deny refuses for good, ban until it ends; nothing charged', async () => {
    const time = { now: EPOCH };
    const store = new MemoryStore();
    const clock = () => time.now;
    const limiter = new ProtocolLimiter({ limit: Limit.perMinute(2), channel: 'ws', store, clock });
    const ops = new LimitOperations({ store, clock });
    await ops.allow({ user: 'friend' });
    await ops.deny('10.9.0.0/16');
    await ops.ban({ user: 'spammer' }, { for: '30s' });
    const check = (over: Partial<RequestView>) => limiter.check(view(over)) as ProtocolVerdict;
    for (let i = 0; i < 4; i++) expect(check({ userId: 'friend' }).allowed).toBe(true);
    expect(check({ ip: '10.9.3.4' }).decision.retryAfterMs).toBe(-1);
    expect(check({ userId: 'spammer' }).decision).toMatchObject({
      allowed: false,
      retryAfterMs: 30_000,
    });
    time.now += 30_000;
    expect(check({ userId: 'spammer' }).decision).toMatchObject({ allowed: true, remaining: 1 });
  });
});
