// DurableObjectStore#operations as on Workers (docs/guide/cloudflare.md, "Operator entries"):
// two stores on one in-process namespace stand for two isolates (each its own snapshot; the
// objects are all they share). Time is the limiters' injected clock: on Workers the entries
// are re-read by the first decision after each syncMs, never by a timer.
import './as-workers.js';
import {
  gcra,
  LimitOperations,
  RateLimiter,
  type RequestView,
  SluiceConfigError,
} from '@sluice/core';
import { HttpLimiter, type HttpVerdict } from '@sluice/core/http';
import { describeOverrideKinds, describeWildcardSubjects, EPOCH } from '@sluice/test-kit';
import { DurableObjectStore } from '../src/index.js';
import { inProcessNamespace } from './in-process.js';

const SYNC_MS = 1000;

function view(ip: string, userId?: string): RequestView {
  return { method: 'GET', route: 'GET /a', ip, headers: {}, raw: {}, userId };
}
// Not the real time: entries end by the clocks of their writer and readers only.
const T0 = EPOCH;

function isolates() {
  const { namespace, fetches } = inProcessNamespace();
  const time = { now: T0 };
  const clock = () => time.now;
  const store = () => new DurableObjectStore({ namespace, operations: { syncMs: SYNC_MS } });
  const a = store();
  const b = store();
  const algorithm = gcra({ rate: 1_000_000, period: '1s' });
  return {
    time,
    fetches,
    /** Fetches to the operator entries' object of prefix `sl` so far. */
    opsFetches: () => fetches.filter((name) => name === 'sluice:ops:sl').length,
    opsA: new LimitOperations({ store: a, clock }),
    limiterA: new RateLimiter({ algorithm, store: a, clock }),
    limiterB: new RateLimiter({ algorithm, store: b, clock }),
    httpA: new HttpLimiter({ store: a, limit: '1000000/1s', clock }),
    httpB: new HttpLimiter({ store: b, limit: '1000000/1s', clock }),
  };
}

describe('operator entries on the Durable Object store, two isolates (Workers timing)', () => {
  it("a ban written in A denies A's next decision and B's first decision after syncMs, with nothing sent per decision", async () => {
    const { time, opsFetches, opsA, httpA, httpB } = isolates();
    const status = async (http: HttpLimiter, ip = '203.0.113.7') =>
      ((await http.check(view(ip))) as { statusCode: number } | undefined)?.statusCode;
    // B's first decision loads the entries (none yet), in its own request.
    expect(await status(httpB)).toBe(200);
    expect(opsFetches()).toBe(1);
    await opsA.ban({ ip: '203.0.113.7' }, { for: '1h', reason: 'scraping' });
    expect(await status(httpA)).toBe(429);
    // Within syncMs B still decides from what it loaded: no fetch to the entries' object.
    const written = opsFetches();
    for (const dt of [1, 500, SYNC_MS - 1]) {
      time.now = T0 + dt;
      expect(await status(httpB)).toBe(200);
    }
    expect(opsFetches()).toBe(written);
    // The first decision at syncMs reloads, waits for it, and is denied for what is left.
    time.now = T0 + SYNC_MS;
    const banned = (await httpB.check(view('203.0.113.7'))) as HttpVerdict;
    expect(banned).toMatchObject({ statusCode: 429, retryAfterSeconds: 3600 - SYNC_MS / 1000 });
    expect(opsFetches()).toBe(written + 1);
    // Other clients pass; the rest of this syncMs of decisions sends nothing more.
    for (let i = 0; i < 20; i++) expect(await status(httpB, `198.51.100.${i}`)).toBe(200);
    expect(opsFetches()).toBe(written + 1);
    // Unbanned in A: B lets it through from its first decision after the next syncMs.
    await opsA.unban({ ip: '203.0.113.7' });
    expect(await status(httpA)).toBe(200);
    time.now = T0 + 2 * SYNC_MS - 1;
    expect(await status(httpB)).toBe(429);
    time.now = T0 + 2 * SYNC_MS;
    expect(await status(httpB)).toBe(200);
  });

  it('a RateLimiter on B (consume, consumeAtMost, reserve) waits for the reload its first decision after syncMs started', async () => {
    const { time, opsA, limiterA, limiterB } = isolates();
    expect((await limiterB.consume('k1')).allowed).toBe(true);
    await opsA.ban({ key: 'k1' }, { for: '1h' });
    await opsA.ban({ key: 'k2' }, { for: '1h' });
    await opsA.ban({ key: 'k3' }, { for: '1h' });
    expect((await limiterA.consume('k1')).allowed).toBe(false);
    time.now = T0 + SYNC_MS - 1;
    expect((await limiterB.consume('k1')).allowed).toBe(true);
    time.now = T0 + SYNC_MS;
    expect(await limiterB.consume('k1')).toMatchObject({
      allowed: false,
      retryAfterMs: 3_600_000 - SYNC_MS,
    });
    time.now = T0 + 2 * SYNC_MS;
    expect(await limiterB.consumeAtMost('k2', 5)).toMatchObject({ allowed: false, cost: 0 });
    time.now = T0 + 3 * SYNC_MS;
    const booked = await limiterB.reserve('k3', { maxWait: 1000 });
    expect(booked.decision).toMatchObject({ allowed: false });
  });

  it('allow and deny CIDRs and an override reach B by precedence; ends are kept by each clock', async () => {
    const { time, opsA, limiterB, httpB } = isolates();
    const status = async (ip: string) =>
      ((await httpB.check(view(ip))) as { statusCode: number } | undefined)?.statusCode;
    const at = async (t: number) => {
      time.now = t;
      // The first decision after syncMs reloads: a limiter's decision carries it here.
      await limiterB.consume('tick');
    };
    await at(T0);
    await opsA.deny('203.0.113.0/24');
    await opsA.deny('2001:db8::/32');
    await opsA.allow('203.0.113.128/25', { for: '30s' });
    await opsA.override({ key: 'tenant' }, '5/1m', { for: '1h' });
    expect(await status('203.0.113.9')).toBe(200);
    await at(T0 + SYNC_MS);
    expect(await status('203.0.113.9')).toBe(403);
    expect(await status('2001:db8:1::7')).toBe(403);
    expect(await status('::ffff:203.0.113.10')).toBe(403);
    expect(await status('198.51.100.1')).toBe(200);
    // Allowed: let through as a skipped request is (no verdict at all).
    expect(await status('203.0.113.200')).toBeUndefined();
    expect((await limiterB.consume('tenant')).limit).toBe(5);
    // The allow ends after 30 s by B's own clock, with no reload.
    await at(T0 + 30_000);
    expect(await status('203.0.113.200')).toBe(403);
  });

  it('a write by an isolate that has seen no entry yet, the first load of a third isolate, and an object that fails', async () => {
    const { namespace } = inProcessNamespace();
    const time = { now: T0 };
    const clock = () => time.now;
    const writer = new DurableObjectStore({ namespace });
    await new LimitOperations({ store: writer, clock }).ban({ user: 'mallory' }, { for: '90s' });
    // A new isolate (default syncMs) obeys it from its first decision.
    const reader = new DurableObjectStore({ namespace });
    const http = new HttpLimiter({ store: reader, limit: '10/1m', clock });
    const first = await http.check(view('192.0.2.1', 'mallory'));
    expect(first).toMatchObject({ statusCode: 429, retryAfterSeconds: 90 });
    // An object that answers 500 fails the write, naming which object, never the prefix.
    const broken = new DurableObjectStore({
      namespace: {
        idFromName: (name) => ({ name }),
        get: () => ({ fetch: async () => new Response('boom', { status: 500 }) }),
      },
    });
    await expect(
      new LimitOperations({ store: broken, prefix: 'secret-prefix' }).ban(
        { ip: '203.0.113.7' },
        { for: '1h' },
      ),
    ).rejects.toThrow(/^sluice: the Durable Object of the operator entries answered 500: boom$/);
  });

  it('LimitOperations accepts the store; a bad operations option names itself', () => {
    const { namespace } = inProcessNamespace();
    const store = new DurableObjectStore({ namespace });
    expect(new LimitOperations({ store }).shared).toBe(true);
    expect(() => new DurableObjectStore({ namespace, operations: { syncMs: -1 } })).toThrow(
      SluiceConfigError,
    );
  });

  describe('override kinds, DurableObjectStore', () => {
    describeOverrideKinds(
      () => new DurableObjectStore({ namespace: inProcessNamespace().namespace }),
    );
  });

  describe('wildcard subjects, DurableObjectStore', () => {
    describeWildcardSubjects(
      () => new DurableObjectStore({ namespace: inProcessNamespace().namespace }),
    );
  });
});
