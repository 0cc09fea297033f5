// #region axios
import { pacedFetch } from '@sluice/client';
import axios from 'axios';

// axios >= 1.7: its fetch adapter, on the paced fetch.
export const api = axios.create({ adapter: 'fetch', env: { fetch: pacedFetch(fetch) } });
// #endregion axios
