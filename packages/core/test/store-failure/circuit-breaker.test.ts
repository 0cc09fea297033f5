// The circuit breaker's state machine ("A failing store is not waited on by every
// request"), driven by an injected clock: no sleeps. And FailSafeStore's breakers per failure
// domain: one line when the store starts failing, one when it answers again, per outage.
import {
  type Decision,
  fixedWindow,
  RateLimiter,
  SluiceConfigError,
  type Store,
} from '../../src/index.js';
import { type Algorithm, FailSafeStore } from '../../src/store-api.js';
import { CircuitBreaker } from '../../src/store-failure/circuit-breaker.js';

function fakeClock() {
  const time = { ms: 10_000 };
  return { time, clock: () => time.ms };
}

describe('CircuitBreaker', () => {
  it('closed: every call goes through; a success changes nothing', () => {
    const b = new CircuitBreaker({ clock: fakeClock().clock });
    expect(b.state).toBe('closed');
    for (let i = 0; i < 3; i++) expect(b.tryAcquire()).toBe('call');
    expect(b.onSuccess(false)).toBe(false);
    expect(b.state).toBe('closed');
  });

  it('one failure opens it; it rejects until cooldownMs have passed, then lets one probe through', () => {
    const { time, clock } = fakeClock();
    const b = new CircuitBreaker({ cooldownMs: 500, clock });
    expect(b.onFailure(false)).toBe(true); // an outage starts
    expect(b.state).toBe('open');
    time.ms += 499;
    expect(b.tryAcquire()).toBe('reject');
    time.ms += 1;
    expect(b.tryAcquire()).toBe('probe');
    expect(b.state).toBe('half-open');
    // One probe at a time: the others are rejected, however long it takes.
    time.ms += 10_000;
    expect(b.tryAcquire()).toBe('reject');
    expect(b.tryAcquire()).toBe('reject');
  });

  it("the probe's success closes it", () => {
    const { time, clock } = fakeClock();
    const b = new CircuitBreaker({ cooldownMs: 100, clock });
    b.onFailure(false);
    time.ms += 100;
    expect(b.tryAcquire()).toBe('probe');
    expect(b.onSuccess(true)).toBe(true);
    expect(b.state).toBe('closed');
    expect(b.tryAcquire()).toBe('call');
  });

  it("the probe's failure opens it again for a full cooldown (not a new outage)", () => {
    const { time, clock } = fakeClock();
    const b = new CircuitBreaker({ cooldownMs: 100, clock });
    b.onFailure(false);
    time.ms += 150;
    expect(b.tryAcquire()).toBe('probe');
    time.ms += 30; // the probe took 30 ms to fail
    expect(b.onFailure(true)).toBe(false);
    expect(b.state).toBe('open');
    time.ms += 99;
    expect(b.tryAcquire()).toBe('reject');
    time.ms += 1;
    expect(b.tryAcquire()).toBe('probe');
  });

  it('outcomes of calls that were not the probe neither close nor reopen it', () => {
    const { time, clock } = fakeClock();
    const b = new CircuitBreaker({ cooldownMs: 100, clock });
    b.onFailure(false);
    // A call made before it opened answers late: no effect.
    expect(b.onSuccess(false)).toBe(false);
    expect(b.state).toBe('open');
    time.ms += 60;
    expect(b.onFailure(false)).toBe(false); // does not restart the cooldown
    time.ms += 40;
    expect(b.tryAcquire()).toBe('probe');
    expect(b.onSuccess(false)).toBe(false);
    expect(b.onFailure(false)).toBe(false);
    expect(b.state).toBe('half-open');
    expect(b.onSuccess(true)).toBe(true);
  });

  it('cooldownMs 0: the next call after a failure is the probe', () => {
    const b = new CircuitBreaker({ cooldownMs: 0, clock: fakeClock().clock });
    b.onFailure(false);
    expect(b.tryAcquire()).toBe('probe');
    expect(b.tryAcquire()).toBe('reject');
  });

  it('defaults: cooldown 1000 ms on performance.now', () => {
    expect(new CircuitBreaker().cooldownMs).toBe(1000);
  });

  it.each([
    [null, 'breaker'],
    ['fast', 'breaker'],
    [{ cooldownMs: -1 }, 'breaker.cooldownMs'],
    [{ cooldownMs: Number.NaN }, 'breaker.cooldownMs'],
    [{ cooldownMs: '1s' }, 'breaker.cooldownMs'],
    [{ clock: 5 }, 'breaker.clock'],
  ])('bad options %j: SluiceConfigError naming %s, at construction', (options, option) => {
    for (const build of [
      () => new CircuitBreaker(options as never),
      () =>
        new RateLimiter({
          algorithm: fixedWindow({ limit: 1, window: 1000 }),
          store: new StepStore(),
          breaker: options as never,
        }),
    ]) {
      expect(build).toThrow(SluiceConfigError);
      expect(build).toThrow(expect.objectContaining({ option }));
    }
  });
});

/**
 * A store whose calls stay pending until the test settles them, with optional failure
 * domains (the first character of the key).
 */
class StepStore implements Store {
  readonly pending: { key: string; resolve: (d: Decision) => void; reject: (e: Error) => void }[] =
    [];
  failureDomain?: (key: string) => string;
  consume(key: string, algorithm: Algorithm, cost: number): Promise<Decision> {
    return new Promise((resolve, reject) => {
      this.pending.push({
        key,
        reject,
        resolve: (d) => resolve(d),
      });
    }).then(() => ({
      allowed: true,
      limit: algorithm.limit,
      remaining: 7,
      retryAfterMs: 0,
      resetAfterMs: 0,
      cost,
    }));
  }
  reset(): void {}
  /** Settles the oldest pending call of `key`. */
  settle(key: string, ok: boolean): void {
    const i = this.pending.findIndex((p) => p.key === key);
    const [call] = this.pending.splice(i, 1);
    if (ok) call!.resolve(undefined as never);
    else call!.reject(new Error(`node of ${key} down`));
  }
}

const flush = () => new Promise<void>((r) => setImmediate(r));

describe('FailSafeStore: breakers per failure domain', () => {
  function setup(domains: boolean) {
    const inner = new StepStore();
    if (domains) inner.failureDomain = (key) => key[0]!;
    const messages: string[] = [];
    const { time, clock } = fakeClock();
    const store = new FailSafeStore({
      store: inner,
      onStoreError: 'deny',
      logger: { warn: (m: string) => void messages.push(m) },
      breaker: { cooldownMs: 1000, clock },
    });
    const algorithm = fixedWindow({ limit: 5, window: 60_000 });
    const consume = (key: string) => store.consume(key, algorithm, 1, 0);
    return { inner, store, messages, time, consume };
  }

  it('open: the policy answers at once (the call never reaches the store)', async () => {
    const { inner, store, consume } = setup(false);
    const first = consume('a');
    inner.settle('a', false);
    expect((await first).allowed).toBe(false);
    expect(store.failing).toBe(true);
    expect(store.breakerState('a')).toBe('open');
    const d = await consume('a');
    expect(d).toMatchObject({ allowed: false, remaining: 0 });
    expect(inner.pending).toHaveLength(0);
  });

  it('one domain failing stops only its own calls; 2 lines per outage, however many domains fail and answer within it', async () => {
    const { inner, store, messages, time, consume } = setup(true);
    // 'a…' keys fail; 'b…' keys are healthy and keep answering from the store.
    const fa = consume('a1');
    inner.settle('a1', false);
    await fa;
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/store failing \(node of a1 down\)/);
    for (let i = 0; i < 20; i++) {
      const ok = consume(`b${i}`);
      inner.settle(`b${i}`, true);
      expect((await ok).remaining).toBe(7);
      expect((await consume(`a${i}`)).allowed).toBe(false); // at once: breaker open
    }
    expect(inner.pending).toHaveLength(0);
    expect(store.breakerState('b')).toBe('closed');
    // 'c' fails too, within the same outage: no new line.
    const fc = consume('c1');
    inner.settle('c1', false);
    await fc;
    expect(messages).toHaveLength(1);
    // 'a' answers again, 'c' still fails: not over yet.
    time.ms += 1000;
    const pa = consume('a2');
    expect(inner.pending.map((p) => p.key)).toEqual(['a2']); // the probe
    expect((await consume('a3')).allowed).toBe(false); // one probe at a time
    inner.settle('a2', true);
    expect((await pa).remaining).toBe(7);
    expect(store.breakerState('a')).toBe('closed');
    expect(store.failing).toBe(true);
    expect(messages).toHaveLength(1);
    // 'c' answers: the outage is over.
    const pc = consume('c2');
    inner.settle('c2', true);
    await pc;
    await flush();
    expect(store.failing).toBe(false);
    expect(messages).toHaveLength(2);
    expect(messages[1]).toMatch(/answering again/);
  });

  it('a probe may be a reset; a reset while open does not call the store', async () => {
    const { inner, store, time, consume } = setup(false);
    let resets = 0;
    let fail = true;
    inner.reset = () => {
      resets++;
      if (fail) throw new Error('down');
    };
    const f = consume('a');
    inner.settle('a', false);
    await f;
    await store.reset('a');
    expect(resets).toBe(0);
    time.ms += 1000;
    await store.reset('a'); // the probe: fails
    expect(resets).toBe(1);
    expect(store.breakerState('a')).toBe('open');
    time.ms += 1000;
    fail = false;
    await store.reset('a'); // the probe: answers
    expect(store.breakerState('a')).toBe('closed');
  });
});
