// The command options the store passes to node-redis's sendCommand: while the client is
// ready, no queue timeout (node-redis 6 otherwise arms a 5 s AbortSignal per command, which
// can only fire while a command waits to be written); while it connects, none of its own, so
// the client's command timeout still bounds a call in its offline queue.
import { scriptClient } from '../src/clients/client.js';

type Shape = 'client' | 'cluster' | 'sentinel';

/** A node-redis-shaped stand-in of `shape` that records each sendCommand's arguments. */
function nodeRedisLike(shape: Shape, isReady: boolean | undefined) {
  const sent: unknown[][] = [];
  const client: Record<string, unknown> = {
    isOpen: true,
    evalSha: () => undefined,
    sendCommand: async (...args: unknown[]) => {
      sent.push(args);
      return [1];
    },
  };
  if (isReady !== undefined) client.isReady = isReady;
  if (shape === 'cluster') Object.assign(client, { slots: [], masters: [] });
  if (shape === 'sentinel') client.getMasterNode = () => undefined;
  return { client, sent };
}

/** The options argument of a sendCommand call (the last, after the command's arguments). */
const optionsOf = (call: unknown[]) => call[call.length - 1];

describe.each<Shape>(['client', 'cluster', 'sentinel'])('a node-redis %s', (shape) => {
  it('ready: EVALSHA, EVAL, DEL and INFO are sent with timeout 0 and the same arguments as before', async () => {
    const { client, sent } = nodeRedisLike(shape, true);
    const driver = scriptClient(client)!;
    await driver.evalsha('sha', 1, ['k', 5, ''], true);
    await driver.eval('return 1', 1, ['k', 5]);
    await driver.del('k');
    await driver.info();
    expect(sent.map(optionsOf)).toEqual([
      { timeout: 0 },
      { timeout: 0 },
      { timeout: 0 },
      { timeout: 0 },
    ]);
    const argv = sent[0]!.find(Array.isArray);
    expect(argv).toEqual(['EVALSHA', 'sha', '1', 'k', '5', '']);
  });

  it('connecting (open, not ready): no options of the store, the client keeps its own command timeout', async () => {
    const { client, sent } = nodeRedisLike(shape, false);
    const driver = scriptClient(client)!;
    await driver.evalsha('sha', 1, ['k'], true);
    expect(optionsOf(sent[0]!)).toBeUndefined();
  });
});

it('a node-redis 5 cluster (no isReady) is ready once open: timeout 0', async () => {
  const { client, sent } = nodeRedisLike('cluster', undefined);
  await scriptClient(client)!.evalsha('sha', 1, ['k'], true);
  expect(optionsOf(sent[0]!)).toEqual({ timeout: 0 });
});
