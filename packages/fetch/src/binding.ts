import type { HttpBinding, ProxyTrust, RequestView } from '@sluice/core/http';
import type { FetchRequestState } from './request-state.js';
import { watchAbort } from './settle.js';

export type { FetchRequestState };

/**
 * One limiter's check of one request, as the core's pipeline sees it on a fetch-standard
 * server: the `Request`, what the caller resolved for it (IP, route pattern, user) and the
 * request's shared {@link FetchRequestState}.
 */
export interface FetchCall {
  readonly request: Request;
  readonly ip: string;
  readonly route: string | undefined;
  readonly user: unknown;
  /** What the IP resolver trusts of the proxies in front (for `validate`). */
  readonly trust: ProxyTrust | undefined;
  /** The application: limiters without a `store` share its MemoryStore. */
  readonly app: object;
  readonly state: FetchRequestState;
  /** What the options' callbacks get as the request: the `Request`, or Hono's `c`. */
  readonly context: unknown;
  /** The handlers that will serve the request (for `@SkipThrottle()` on a global limit), if known. */
  readonly handlers: (() => readonly unknown[]) | undefined;
  /** The request headers as a record (lower-case names), read when a callback asks. */
  headerRecord: RequestView['headers'] | undefined;
  /** Keeps post-response work alive (Workers' `ctx.waitUntil`), if given. */
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined;
}

function headersOf(call: FetchCall): RequestView['headers'] {
  if (call.headerRecord !== undefined) return call.headerRecord;
  const record: Record<string, string> = {};
  call.request.headers.forEach((value, name) => {
    record[name] = value;
  });
  call.headerRecord = record;
  return record;
}

/**
 * How the core's pipeline reads a {@link FetchCall} and writes its answer: every value was
 * resolved by the caller (limitFetch, Hono's middleware), so this only hands them over.
 */
export const fetchBinding: HttpBinding<FetchCall, FetchCall> = {
  method: (call) => call.request.method,
  route: (call) => call.route,
  // A check without a route limits the request across routes: the application's limiter.
  appWide: (call) => call.route === undefined,
  ip: (call) => call.ip,
  trustProxy: (call) => call.trust,
  // perf: short words, in every bundle (the resolver is what trusts proxies here).
  proxySetting: { name: 'the ip option', fix: 'ip.forwardedFor({ trustedHops: 1 })' },
  headers: headersOf,
  user: (call) => call.user,
  app: (call) => call.app,
  ledger: (call) => call.state,
  handlers: (call) => call.handlers?.(),
  setHeader(call, name, value) {
    call.state.headers.set(name, value);
  },
  onFinished(call, _res, done) {
    const state = call.state;
    const previous = state.finish;
    state.finish =
      previous === undefined
        ? done
        : (status) => Promise.all([previous(status), done(status)]).then(() => undefined);
    // Watched from the first hold, not once decided: a `mode: 'queue'` request waits inside
    // the pipeline, and its client going away then gives its slot back.
    if (!state.watched) {
      state.watched = true;
      watchAbort(call.request, state, call.waitUntil);
    }
  },
  callbackArgs: (call) => [call.context, call.state.response],
  request: (call) => call.context,
  expose(call, _res, decision) {
    call.state.decision = decision;
  },
};
