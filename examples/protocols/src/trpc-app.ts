// A tRPC API on the standalone adapter: 5 calls per minute per user on every procedure,
// `retryAfter` in the error's data and `Retry-After` on the HTTP answer.
import { Limit, sluiceErrorFormatter, sluiceResponseMeta, sluiceTrpc } from '@sluice/trpc';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';

interface Ctx {
  user?: { id: string };
}

const t = initTRPC.context<Ctx>().create({ errorFormatter: sluiceErrorFormatter });
const limited = t.procedure.use(sluiceTrpc(Limit.perMinute(5).named('api')));

export const appRouter = t.router({
  hello: limited.query(({ ctx }) => `hello ${ctx.user?.id ?? 'stranger'}`),
});

export function trpcServer() {
  return createHTTPServer({
    router: appRouter,
    createContext: ({ req }) => {
      const user = req.headers['x-user'];
      return { user: typeof user === 'string' ? { id: user } : undefined };
    },
    responseMeta: sluiceResponseMeta,
  });
}
