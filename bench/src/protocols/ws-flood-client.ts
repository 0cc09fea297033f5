// The flooding client of the ws bench: numbered 64-byte messages as fast as the socket takes them
// (waiting above 1 MB buffered: a paused server's backpressure), until told to stop.
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
