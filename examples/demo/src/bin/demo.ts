/** `pnpm demo`: starts the three apps (ports PORT_BASE, +1, +2; default 3001–3003) until Ctrl-C. */
import { DEFAULT_PORT_BASE, freePortBase, instructions, startDemo } from '../demo.js';
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
  if (port !== DEFAULT_PORT_BASE) console.log(`(drive it with PORT_BASE=${port} pnpm demo:drive)`);
  console.log(`metrics (sluice.requests, sluice.store.duration): ${telemetry.description}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (process.stdin.isTTY) process.stdin.setRawMode(false);
    console.log('\nstopping…');
    Promise.all([demo.close(), telemetry.shutdown()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Ctrl-C in a terminal: read as a key, not as SIGINT. A SIGINT goes to every process of the
  // terminal's foreground group, pnpm included, which then exits 130 with "Command failed"
  // however cleanly the demo stops; with the terminal in raw mode, only the demo sees it.
  if (process.stdin.isTTY) {
    process.stdin.setRawMode(true);
    process.stdin.on('data', (key: Buffer) => {
      if (key.includes(0x03) || key.includes(0x04)) stop(); // Ctrl-C, Ctrl-D
    });
    process.stdin.resume();
  }
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') {
    const free = await freePortBase(port);
    const way =
      free === undefined
        ? 'choose free ports with PORT_BASE=<port> pnpm demo (it uses that port and the next two)'
        : `ports ${free}–${free + 2} are free: PORT_BASE=${free} pnpm demo ` +
          `(then PORT_BASE=${free} pnpm demo:drive)`;
    console.error(
      `sluice demo: a port is in use (${e.message}): ports ${port}–${port + 2} are needed. ` +
        `Is the demo already running? Stop it, or ${way}.`,
    );
  } else {
    console.error('sluice demo: could not start:', err);
  }
  process.exit(1);
}
