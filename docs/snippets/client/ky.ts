// #region ky
import { pacedFetch } from '@sluice/client';
import ky from 'ky';

// ky's own retry waits only after a 429; pacedFetch waits before, and retries itself.
export const api = ky.create({ fetch: pacedFetch(fetch), retry: 0 });
// #endregion ky
