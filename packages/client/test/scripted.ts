import type { VirtualTime } from '@sluice/test-kit';

/** A scripted server: `answer` decides each request's status and headers at `time.now`. */
export function scripted(
  time: VirtualTime,
  answer: (
    n: number,
    url: string,
  ) => { status?: number; headers?: Record<string, string>; body?: string },
) {
  const sent: { at: number; url: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetchFn = async (input: string | URL | Request, _init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    sent.push({ at: time.now, url });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // The answer takes one turn of the event loop, as a network would.
    await new Promise((r) => setImmediate(r));
    inFlight--;
    const a = answer(sent.length, url);
    return new Response(a.body ?? 'ok', { status: a.status ?? 200, headers: a.headers ?? {} });
  };
  return { fetch: time.wrap(fetchFn), sent, maxInFlight: () => maxInFlight };
}

export const virtual = (time: VirtualTime) => ({ clock: time.clock, sleep: time.sleep });
