/**
 * A flooding WebSocket client for `pnpm bench:protocols`: sends numbered 64-byte messages as
 * fast as its socket takes them (it waits while more than 1 MB is buffered: TCP backpressure
 * from a paused server reaches it there), until told to stop; then reports how many it sent.
 */
import { WebSocket } from 'ws';

const ws = new WebSocket(process.argv[2]!);
let sent = 0;
let stopped = false;
const pad = 'x'.repeat(56);
ws.on('open', () => {
  const pump = () => {
    if (stopped) return;
    while (ws.bufferedAmount < 1 << 20 && !stopped) {
      ws.send(`${String(sent).padStart(8, '0')}${pad}`);
      sent++;
      if (sent % 1000 === 0) break; // let timers and IPC run
    }
    setImmediate(pump);
  };
  pump();
});
process.on('message', (m: { type: string }) => {
  if (m.type !== 'stop') return;
  stopped = true;
  process.send?.({ type: 'sent', sent });
  ws.terminate();
  setTimeout(() => process.exit(0), 100);
});
