/** What the demo's routes answer; the same on every framework. */
import { bearerUser, DEMO_PASSWORD } from './limits.js';

type Headers = Record<string, string | string[] | undefined>;

export const home = () => ({
  service: 'sluice demo',
  routes: [
    'GET /',
    'POST /login',
    'POST /session',
    'GET /api/me',
    'GET /api/items',
    'GET /api/report',
    'GET /api/plan',
    'GET /api/export',
  ],
});

export const login = () => ({ ok: true, token: 'demo' });

export const me = (headers: Headers) => ({ user: bearerUser(headers) ?? null });

export const items = () => ({ items: ['sluice', 'gate', 'weir'] });

export const plan = (headers: Headers) => ({
  tenant: bearerUser(headers) ?? null,
  plan: 'limits from the tenant plan (cached async lookup): per minute, and per calendar month',
});

export const report = (headers: Headers) => ({
  user: bearerUser(headers) ?? null,
  report: 'an expensive report (costs 10 of the 60 /api requests a minute)',
});

/** `POST /session`: 200 with the right `X-Password`, else 401 (a failed login counts). */
export const session = (headers: Headers): { status: number; body: object } =>
  headers['x-password'] === DEMO_PASSWORD
    ? { status: 200, body: { ok: true, token: 'demo' } }
    : { status: 401, body: { ok: false, error: 'wrong password' } };

/** How long an export takes (ms): long enough for requests to overlap. */
export const EXPORT_MS = 300;

/** `GET /api/export`: a slow request (at most 2 in flight per user). */
export const exportData = async (headers: Headers) => {
  await new Promise((resolve) => setTimeout(resolve, EXPORT_MS));
  return { user: bearerUser(headers) ?? null, export: 'a slow export' };
};
