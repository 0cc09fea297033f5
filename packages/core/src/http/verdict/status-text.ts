import { STATUS_TEXT } from '../../common/status-text.js';

/**
 * The reason phrase of an HTTP status (`'Too Many Requests'` for 429), the default JSON
 * body's `error`, from a table equal to Node's `http.STATUS_CODES` (no `node:http` import, so
 * fetch runtimes load it); `'Too Many Requests'` for a status the table does not name.
 */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Too Many Requests';
}
