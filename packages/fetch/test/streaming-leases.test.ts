import { Limit, MemoryStore } from '@sluice/core';
import { limitFetch } from '../src/index.js';

/** A meter provider whose `sluice.leases` up-down counter is summed: the leases in flight. */
function leaseGauge() {
  const gauge = { inFlight: 0, max: 0, zeroAt: 0 };
  const meter = {
    createHistogram: () => ({ record: () => undefined }),
    createObservableCounter: () => ({ addCallback: () => undefined }),
    createUpDownCounter: (name: string) => ({
      add(value: number) {
        if (name !== 'sluice.leases') return;
        gauge.inFlight += value;
        gauge.max = Math.max(gauge.max, gauge.inFlight);
        if (gauge.inFlight === 0) gauge.zeroAt = performance.now();
      },
    }),
  };
  return { gauge, meterProvider: { getMeter: () => meter } };
}

const tick = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A body of `chunks` chunks, one per few ms: a streamed (e.g. server-sent) answer. */
function streamedBody(chunks: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      await tick(1);
      controller.enqueue(new TextEncoder().encode(`chunk ${sent}\n`));
      if (++sent === chunks) controller.close();
    },
  });
}

describe('streamed responses hold their concurrency lease until the body ends or is cancelled', () => {
  it('1,000 streamed responses under Limit.concurrent(50), 30 cancelled mid-body: leases back to 0 within 100 ms of the last end', async () => {
    const { gauge, meterProvider } = leaseGauge();
    const store = new MemoryStore();
    const handler = limitFetch(async () => new Response(streamedBody(4)), {
      limit: Limit.concurrent(50, { leaseMs: 60_000 }).by('api'),
      store,
      ip: () => '203.0.113.7',
      metrics: { meterProvider },
    });
    let started = 0;
    let admitted = 0;
    let denied = 0;
    let cancelled = 0;
    let lastEnd = 0;
    // 60 clients, so that the limit of 50 is reached and some are denied while others stream.
    const client = async () => {
      while (started < 1000) {
        const n = started++;
        const response = await handler(new Request('http://test/stream'));
        if (response.status === 429) {
          denied++;
          started--;
          await response.arrayBuffer();
          await tick(2);
          continue;
        }
        admitted++;
        const reader = response.body!.getReader();
        if (n % 33 === 5 && cancelled < 30) {
          await reader.read(); // one chunk, then the client goes away
          cancelled++;
          await reader.cancel();
        } else {
          while (!(await reader.read()).done);
        }
        lastEnd = performance.now();
      }
    };
    await Promise.all(Array.from({ length: 60 }, client));
    const deadline = lastEnd + 100;
    while (gauge.inFlight !== 0 && performance.now() < deadline) await tick(1);

    expect(admitted).toBe(1000);
    expect(cancelled).toBe(30);
    expect(denied).toBeGreaterThan(0); // the limit was reached: 60 clients, 50 leases
    expect(gauge.max).toBe(50);
    expect(gauge.inFlight).toBe(0);
    expect(gauge.zeroAt - lastEnd).toBeLessThanOrEqual(100);

    // The store agrees: 50 bodies held open are admitted, the 51st is denied.
    const open = await Promise.all(
      Array.from({ length: 51 }, () => handler(new Request('http://test/stream'))),
    );
    expect(open.map((r) => r.status).sort()).toEqual([...Array(50).fill(200), 429]);
    for (const r of open) await r.body?.cancel();
  }, 60_000);
});
