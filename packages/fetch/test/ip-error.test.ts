import { MemoryStore, SluiceConfigError } from '@sluice/core';
import { ip, limitFetch } from '../src/index.js';
import { noIpMessage, runtimeName } from '../src/ip.js';

describe('the ip error names the runtime it detected and the resolver for it', () => {
  it.each([
    [{ Bun: {} }, 'Bun'],
    [{ navigator: { userAgent: 'Bun/1.4.0' } }, 'Bun'],
    [{ Deno: {} }, 'Deno'],
    [{ navigator: { userAgent: 'Deno/2.9.0' } }, 'Deno'],
    [{ navigator: { userAgent: 'Cloudflare-Workers' } }, 'workerd'],
    [{ process: { versions: { node: '20.20.2' } } }, 'Node'],
    [{}, 'unknown'],
  ])('runtimeName(%j) is %s', (globals, name) => {
    expect(runtimeName(globals)).toBe(name);
  });

  it.each([
    ['Bun', /on Bun: pass ip\.bun\(\),/],
    ['Deno', /on Deno: pass ip\.deno\(\),/],
    ['workerd', /on workerd: pass ip\.cloudflare\(\),/],
    ['Node', /on Node: pass ip\.node\(\),/],
    [
      'unknown',
      /on unknown: pass ip\.bun\(\), ip\.deno\(\), ip\.node\(\), ip\.cloudflare\(\), ip\.vercel\(\),/,
    ],
  ] as const)('on %s it offers that runtime resolver', (runtime, text) => {
    expect(noIpMessage(undefined, runtime)).toMatch(text);
    expect(noIpMessage(undefined, runtime)).toMatch(/ip\.forwardedFor\(\{ trustedHops \}\)/);
  });

  it.each(['Bun', 'Deno'] as const)(
    "@hono/node-server's env on %s: the message says ip.node(), not the runtime's own",
    (runtime) => {
      const env = { incoming: { socket: { remoteAddress: '127.0.0.1' } } };
      expect(noIpMessage(env, runtime)).toMatch(new RegExp(`on ${runtime}: pass ip\\.node\\(\\),`));
    },
  );

  it('a limitFetch on Node with the Bun resolver answers the error naming Node and ip.node()', async () => {
    const handler = limitFetch(() => new Response('ok'), {
      limit: '1/min',
      ip: ip.bun(),
      store: new MemoryStore(),
    });
    const failed = (handler as (req: Request, env: unknown) => Promise<Response>)(
      new Request('http://x/'),
      {},
    );
    await expect(failed).rejects.toThrow(SluiceConfigError);
    await expect(failed).rejects.toThrow(/\(option "ip"\) on Node: pass ip\.node\(\),/);
  });
});
