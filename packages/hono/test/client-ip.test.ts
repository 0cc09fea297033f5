import { Hono } from 'hono';
import { MemoryStore, rateLimit } from '../src/index.js';

/** Runs `fn` with `navigator.userAgent` set as on another runtime (what Hono's getRuntimeKey reads). */
async function as<T>(userAgent: string, fn: () => Promise<T>): Promise<T> {
  const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent }, configurable: true });
  try {
    return await fn();
  } finally {
    if (before === undefined) delete (globalThis as { navigator?: unknown }).navigator;
    else Object.defineProperty(globalThis, 'navigator', before);
  }
}

describe("Hono's default ip: the error names the runtime detected and the resolver to use", () => {
  it.each([
    ['Bun/1.4.0', 'Bun'],
    ['Deno/2.9.0', 'Deno'],
  ])(
    "the Node snippet (@hono/node-server's env) run on %s: the 500 says ip.node()",
    async (agent, runtime) => {
      const errors: string[] = [];
      const app = new Hono();
      app.onError((err, c) => {
        errors.push(err.message);
        return c.text('error', 500);
      });
      app.use(rateLimit({ limit: '5/min', store: new MemoryStore() }));
      app.get('/', (c) => c.text('ok'));
      // What @hono/node-server passes as env: Node's request, not Bun's server or Deno's info.
      const env = { incoming: { socket: { remoteAddress: '127.0.0.1' } }, outgoing: {} };
      const res = await as(agent, async () => app.fetch(new Request('http://x/'), env));
      expect(res.status).toBe(500);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(`\\(option "ip"\\) on ${runtime}: pass ip\\.node\\(\\),`),
      );
    },
  );
});
