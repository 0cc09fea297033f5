/** What the demo's routes answer; the same on every framework. */
import { bearerUser } from './limits.js';

type Headers = Record<string, string | string[] | undefined>;

export const home = () => ({
  service: 'sluice demo',
  routes: ['GET /', 'POST /login', 'GET /api/me', 'GET /api/items', 'GET /api/report'],
});

export const login = () => ({ ok: true, token: 'demo' });

export const me = (headers: Headers) => ({ user: bearerUser(headers) ?? null });

export const items = () => ({ items: ['sluice', 'gate', 'weir'] });

export const report = (headers: Headers) => ({
  user: bearerUser(headers) ?? null,
  report: 'an expensive report (costs 10 of the 60 /api requests a minute)',
});
