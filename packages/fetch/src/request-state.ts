import type { Decision } from '@sluice/core';

// Its own file: binding.ts and settle.ts both read it, and binding.ts imports settle.ts.
/**
 * What every sluice limiter that checks one `Request` shares: the headers to send, the
 * decision reported, the settling of held charges. It is the request's ledger (a key charged
 * by one limiter is not charged again by the next), kept per `Request` object.
 */
export interface FetchRequestState {
  /**
   * The response headers the limiters wrote (the most restrictive decision's), by name as
   * the core writes it (a `Map`: undici's `Headers` costs µs per call).
   */
  readonly headers: Map<string, string>;
  /** The decision reported (the most restrictive), once a limiter decided. */
  decision: Decision | undefined;
  /** Settles the held charges (leases, outcome-aware counting) once the response is done. */
  finish: ((status: number | undefined) => Promise<void>) | undefined;
  /** The response sent, once known (what `requestWasSuccessful` is given). */
  response: Response | undefined;
  /** Whether the request's abort signal is watched (once something is held). */
  watched: boolean;
}
