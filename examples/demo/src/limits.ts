/**
 * The demo's limits, defined once and used by the Express, Fastify and Koa apps alike.
 *
 * They are named limiters (Laravel's `RateLimiter::for`) in the default `throttles`
 * registry; a route refers to one as `'throttle:<name>'`:
 *
 * - `login`: 5 per minute and 100 per day per client IP (`POST /login`);
 * - `api`: 60 per minute per user, the user named in `Authorization: Bearer <user>`, else the
 *   client IP. `.by(subject)` keys the limit by the subject alone (not by route) and
 *   `.named('api')` names its bucket, so every `/api/*` route draws from the same
 *   per-user bucket;
 * - `report`: the same bucket as `api`, but each request takes {@link REPORT_COST} units
 *   (`GET /api/report` is expensive);
 * - `session`: a login that counts only failed attempts (`POST /session` with
 *   `skipSuccessfulRequests`): 5 failures per minute per IP, then a block of 15 minutes,
 *   doubled on each repeated offence up to 24 h (`blockFor`);
 * - `export`: at most {@link EXPORTS_IN_FLIGHT} exports in flight per user
 *   (`GET /api/export`, a slow request; `Limit.concurrent`).
 */
import { Limit, type RequestView, throttles } from '@sluice/core';

/** `POST /login`: requests per minute per IP. */
export const LOGIN_PER_MINUTE = 5;
/** `POST /login`: requests per day per IP. */
export const LOGIN_PER_DAY = 100;
/** `/api/*`: units per minute per user (or per IP for anonymous requests). */
export const API_PER_MINUTE = 60;
/** Units one `GET /api/report` takes from the user's `/api` bucket. */
export const REPORT_COST = 10;
/** `POST /session`: failed attempts per minute per IP before the block. */
export const SESSION_FAILURES_PER_MINUTE = 5;
/** `POST /session`: the first block (then doubled per repeated offence, up to 24 h). */
export const SESSION_BLOCK = '15m';
/** `GET /api/export`: exports in flight at once per user. */
export const EXPORTS_IN_FLIGHT = 2;
/** The password `POST /session` accepts (header `X-Password`): the demo's stand-in. */
export const DEMO_PASSWORD = 'demo';

/**
 * The user named in `Authorization: Bearer <user>` (the demo's stand-in for real
 * authentication: the token *is* the user name), or `undefined`.
 */
export function bearerUser(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const value = headers.authorization;
  const match = typeof value === 'string' ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return match?.[1];
}

/** Whom an `/api` request is counted against: `user:<name>`, else `ip:<client IP>`. */
export function apiSubject(req: RequestView): string {
  const user = bearerUser(req.headers);
  return user !== undefined ? `user:${user}` : `ip:${req.ip}`;
}

const apiLimit = (req: RequestView) =>
  Limit.perMinute(API_PER_MINUTE).by(apiSubject(req)).named('api');

throttles.define('login', (req) => [
  Limit.perMinute(LOGIN_PER_MINUTE).by(req.ip),
  Limit.perDay(LOGIN_PER_DAY).by(req.ip),
]);
throttles.define('api', apiLimit);
throttles.define('report', (req) => apiLimit(req).cost(REPORT_COST));
// Only failures count (the route's skipSuccessfulRequests gives successes back); a sixth
// failure within the minute blocks the IP for 15 min, 30 min the next time, up to 24 h.
throttles.define('session', (req) =>
  Limit.perMinute(SESSION_FAILURES_PER_MINUTE)
    .by(req.ip)
    .named('session')
    .blockFor(SESSION_BLOCK, { backoff: 2, maxBlock: '24h' }),
);
throttles.define('export', (req) =>
  Limit.concurrent(EXPORTS_IN_FLIGHT).by(apiSubject(req)).named('export'),
);

export { throttles };
