import { STATUS_CODES } from 'node:http';

/**
 * The reason phrase of an HTTP status (`'Too Many Requests'` for 429), the default JSON
 * body's `error`; `'Too Many Requests'` for a status Node does not name.
 */
export function statusText(status: number): string {
  return STATUS_CODES[status] ?? 'Too Many Requests';
}
