/** `pnpm demo`: starts the three apps (ports PORT_BASE, +1, +2; default 3001–3003) until Ctrl-C. */
import { DEFAULT_PORT_BASE, instructions, startDemo } from '../demo.js';
import { startTelemetry } from '../telemetry.js';

const port = Number(process.env.PORT_BASE ?? DEFAULT_PORT_BASE);
if (!Number.isInteger(port) || port < 1 || port > 65533) {
  console.error(`PORT_BASE must be a port number (1–65533), got ${process.env.PORT_BASE}`);
  process.exit(2);
}

try {
  // Before the apps: their limiters (metrics: true) record on the global meter provider.
  const telemetry = startTelemetry();
  const demo = await startDemo({ port });
  console.log(instructions(demo));
  console.log(`metrics (sluice.requests, sluice.store.duration): ${telemetry.description}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping…');
    Promise.all([demo.close(), telemetry.shutdown()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') {
    console.error(
      `sluice demo: port in use (${e.message}). Is the demo already running? ` +
        'Stop it, or choose other ports with PORT_BASE=4001 pnpm demo (and PORT_BASE=4001 pnpm demo:drive).',
    );
  } else {
    console.error('sluice demo: could not start:', err);
  }
  process.exit(1);
}
