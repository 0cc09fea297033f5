// pnpm --filter @sluice/example-protocols ws: an echo server; a client floods 1,000 messages
// and prints how many echoes came back each second (100/s after the first burst of 100).
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { wsServer } from '../ws-app.js';

const server = wsServer('pause');
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  console.log(`WebSocket echo on ${url}`);
  const ws = new WebSocket(url);
  let echoed = 0;
  ws.on('message', () => echoed++);
  ws.on('open', () => {
    for (let i = 0; i < 1000; i++) ws.send(`message ${i}`);
    const started = Date.now();
    const tick = setInterval(() => {
      console.log(`${Math.round((Date.now() - started) / 1000)} s: ${echoed} echoed`);
      if (echoed === 1000) {
        clearInterval(tick);
        ws.close();
        if (process.env.KEEP !== '1') server.close();
      }
    }, 1000);
  });
});
