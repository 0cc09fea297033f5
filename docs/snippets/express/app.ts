import { rateLimit, throttle } from '@sluice/express';
import express from 'express';

const app = express();

// Every route registered after this line: 60 requests per minute per client
// (the user id in req.user?.id when there is one, else the client IP).
app.use(rateLimit({ limit: 'throttle:60,1' }));

app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

// And POST /login: 5 per minute per client on top. The 6th quick attempt gets a 429.
app.post('/login', throttle('throttle:5,1'), (req, res) => {
  res.json({ ok: true, remaining: req.rateLimit?.remaining });
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${port}`);
});
