// The rate-limit headers' style, in an Express app; every adapter takes the option.
// #region headers
import { rateLimit } from '@sluice/express';
import express from 'express';

const app = express();

// The IETF draft-8 headers instead of X-RateLimit-*; several styles: an array; none: false.
app.use(rateLimit({ limit: 'throttle:60,1', headers: 'draft-8' }));
// #endregion headers

app.listen(Number(process.env.PORT ?? 3000));
