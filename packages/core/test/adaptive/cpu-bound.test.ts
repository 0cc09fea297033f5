// Limit.adaptive on a CPU-bound server (fake clock): one event loop serving requests of
// 2 ms of CPU one after another, offered 2× its capacity. About one request is in flight at
// a time, so a limit on requests in flight alone never trips while the queue in front of
// the loop grows without bound; the event-loop delay (the `loopDelay` source, on Node a
// perf_hooks histogram) makes the controller count that queue and shed.
import { AdaptiveConcurrency } from '../../src/adaptive/adaptive-concurrency.js';
import { turnDelay } from '../../src/adaptive/loop-delay.js';
import { parseAdaptiveOptions } from '../../src/adaptive/options.js';

const CPU_MS = 2;
const SHED_MS = 0.05; // answering a 503 costs a little CPU too
const RATE = 1000; // per second: 2× the capacity (500/s)

/**
 * Runs the loop for `seconds` of fake time. Requests arrive every 1 ms (RATE); each turn of
 * the loop takes the requests that had arrived when it began (as epoll hands them over), in
 * order: the controller decides each, which burns CPU_MS (admitted) or SHED_MS (shed).
 * `signal`: what the controller is told of the loop: nothing; the window's event-loop delay
 * (`loopDelay`: the mean wait of the requests taken since the last read, what a delay
 * histogram sees on a loop that busy); or also the turn delay (`useTurnDelay`: the time the
 * current turn has run, as the Node adapters measure it with setImmediate).
 */
function run(seconds: number, signal: 'none' | 'window' | 'turn') {
  let waits: number[] = [];
  const meanWait = () => {
    const m = waits.length === 0 ? 0 : waits.reduce((a, b) => a + b, 0) / waits.length;
    waits = [];
    return m;
  };
  const a = new AdaptiveConcurrency(
    parseAdaptiveOptions({ loopDelay: signal === 'none' ? false : meanWait }),
  );
  let now = 0;
  let turnStart = 0;
  if (signal === 'turn') a.useTurnDelay(() => now - turnStart);
  const end = seconds * 1000;
  const latencies: number[] = []; // of admitted requests in the last half, arrival to answer
  let served = 0;
  let shed = 0;
  let next = 0; // the next arrival (arrivals at 0, 1, 2… ms)
  while (now < end) {
    if (next > now) now = next; // idle until one arrives
    turnStart = now;
    const ready = Math.floor(now - next) + 1; // arrived by the turn's start
    for (let i = 0; i < ready; i++) {
      const arrived = next;
      next += 1000 / RATE;
      waits.push(now - arrived);
      if (a.tryAcquire(now)) {
        const start = now;
        now += CPU_MS;
        a.release(start, now);
        served++;
        if (arrived >= end / 2) latencies.push(now - arrived);
      } else {
        now += SHED_MS;
        shed++;
      }
    }
  }
  latencies.sort((x, y) => x - y);
  const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1] ?? Number.POSITIVE_INFINITY;
  return { served, shed, p99, perSecond: served / seconds };
}

describe('Limit.adaptive on a CPU-bound server (1 in flight, rising loop delay)', () => {
  it('without the event-loop delay nothing is shed and latency explodes', () => {
    const r = run(30, 'none');
    expect(r.shed).toBe(0);
    expect(r.p99).toBeGreaterThan(5000);
  });

  it("with the window's loop delay the queue the latency samples cannot see is counted: shed, p99 bounded", () => {
    const r = run(30, 'window');
    expect(r.shed).toBeGreaterThan(0);
    // measured once per window (100 ms): the admitted p99 stays within a few windows (it
    // passes 5 s above, growing without bound)
    expect(r.p99).toBeLessThan(300);
    expect(r.perSecond).toBeGreaterThanOrEqual(0.85 * 500);
  });

  it('with the turn delay (Node), each request sees the work ahead of it: p99 within a few service times', () => {
    const r = run(30, 'turn');
    expect(r.shed).toBeGreaterThan(0);
    // a request takes 2 ms unloaded; admitted ones wait at most about one more (4 ms here)
    expect(r.p99).toBeLessThanOrEqual(6);
    // the loop stays busy serving: at least 85% of its 500/s capacity
    expect(r.perSecond).toBeGreaterThanOrEqual(0.85 * 500);
  });

  it('an idle loop (delay under one request time) counts nothing queued', () => {
    const a = new AdaptiveConcurrency(parseAdaptiveOptions({ loopDelay: () => 1.5 }));
    for (let t = 0; t < 1000; t += 10) {
      a.tryAcquire(t);
      a.release(t, t + 2);
    }
    expect(a.queued).toBe(0);
    const busy = new AdaptiveConcurrency(parseAdaptiveOptions({ loopDelay: () => 40 }));
    for (let t = 0; t < 1000; t += 10) {
      busy.tryAcquire(t);
      busy.release(t, t + 2);
    }
    // 40 ms of delay over 2 ms requests: 20 queued at each window's end, less the requests
    // taken since (10 per window here)
    expect(busy.queued).toBe(10);
  });

  it("turnDelay (Node's glue): 0 for a turn's first request, then the time the turn has run; a new turn after setImmediate", async () => {
    let now = 1000;
    const scheduled: (() => void)[] = [];
    const delay = turnDelay(
      () => now,
      (f) => scheduled.push(f),
    );
    expect(delay()).toBe(0);
    now += 7;
    expect(delay()).toBe(7);
    now += 3;
    expect(delay()).toBe(10);
    expect(scheduled).toHaveLength(1); // one mark per turn
    scheduled[0]!(); // the turn ended
    now += 50;
    expect(delay()).toBe(0);
    // the real setImmediate ends a real turn
    const real = turnDelay();
    real();
    await new Promise((resolve) => setImmediate(resolve));
    expect(real()).toBe(0);
  });
});
