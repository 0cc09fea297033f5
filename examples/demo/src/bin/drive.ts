/**
 * `pnpm demo:drive`: sends traffic to the demo started by `pnpm demo` (ports PORT_BASE, +1,
 * +2 on 127.0.0.1; default 3001–3003) and prints what each framework answered.
 */
import { DEFAULT_PORT_BASE, FRAMEWORKS, type Framework, HOST } from '../demo.js';
import { checkRunning, DEFAULT_PLAN, DemoNotRunningError, drive, formatReport } from '../drive.js';

const base = Number(process.env.PORT_BASE ?? DEFAULT_PORT_BASE);
const urls = Object.fromEntries(
  FRAMEWORKS.map((f, i) => [f, `http://${HOST}:${base + i}`]),
) as Record<Framework, string>;

const perFramework = DEFAULT_PLAN.reduce((n, s) => n + s.count, 0);
// --paced: through @sluice/client's pacedFetch; --max-wait <ms> caps its waits (default 5 s).
const paced = process.argv.includes('--paced');
const maxWaitArg = process.argv.indexOf('--max-wait');
const maxWait = maxWaitArg > 0 ? Number(process.argv[maxWaitArg + 1]) : 5000;
try {
  await checkRunning(urls);
  console.log(
    `Sending ${perFramework} requests to each of ${Object.values(urls).join(', ')}, one at a time${paced ? `, paced by @sluice/client (maxWait ${maxWait} ms)` : ''}…\n`,
  );
  const tallies = await drive(urls, DEFAULT_PLAN, { paced, maxWait });
  console.log(formatReport(tallies));
  if (paced) {
    const limited = tallies.reduce((n, t) => n + t.limited, 0);
    const held = tallies.reduce((n, t) => n + t.held, 0);
    console.log(`
Paced: ${limited} x 429. The client read each answer's X-RateLimit-* headers and waited
before the server would deny; ${held} requests would have waited longer than maxWait, so it
did not send them (WaitTooLongError). Run without --paced to see the 429s it avoided.`);
    process.exit(0);
  }
  console.log(`
What to look for:
  POST /login        5 x 200, then 429 with Retry-After: 5 per minute per IP (all requests come from 127.0.0.1).
  GET /api/items     alice passes her 60 a minute and gets 429s; bob, carol and anonymous (per IP)
                     have their own buckets and get none.
  GET /api/report    each costs 10: bob's X-RateLimit-Remaining drops by 10 per report.
  GET /              public: never limited, no rate-limit headers.
The buckets refill over time (login 1 per 12 s, /api 1 per second); running the driver again
right away starts from what this run left.`);
  process.exit(0);
} catch (err) {
  if (err instanceof DemoNotRunningError) {
    console.error(
      `sluice demo:drive: ${err.message} (${String((err.cause as Error)?.cause ?? err.cause)}).\n` +
        'Start the demo first, in another terminal: pnpm demo' +
        (process.env.PORT_BASE ? ` (with the same PORT_BASE=${process.env.PORT_BASE})` : ''),
    );
  } else {
    console.error('sluice demo:drive failed:', err);
  }
  process.exit(1);
}
