// #region fetch
import { pacedFetch, WaitTooLongError } from '@sluice/client';

// One paced fetch per API client: it learns the server's policies from its answers.
const api = pacedFetch(fetch, { maxWait: '30s', retries: 2 });

export async function item(base: string, id: number): Promise<unknown> {
  try {
    const res = await api(`${base}/items/${id}`);
    return await res.json();
  } catch (error) {
    // The server's policy would hold this request back longer than maxWait: not sent.
    if (error instanceof WaitTooLongError) return { retryInMs: error.retryAfterMs };
    throw error;
  }
}
// #endregion fetch

// #region many
// 1,000 calls at once: sent as fast as the policy allows, none denied.
export async function all(base: string, ids: number[]): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await api(`${base}/items/${id}`)).status));
}
// #endregion many
