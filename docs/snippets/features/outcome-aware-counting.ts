import { Limit, throttle } from '@sluice/express';
import express from 'express';

const app = express();
app.use(express.json());

app.post('/login', throttle(Limit.perMinute(5), { skipSuccessfulRequests: true }), (req, res) => {
  if (req.body?.password === 'correct horse') res.json({ ok: true });
  else res.status(401).json({ ok: false });
});

app.listen(3000);
// Successful logins never count; the 6th failed one within the minute gets 429.
