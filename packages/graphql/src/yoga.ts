import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { type Begin, type Finish, GraphqlLimiter } from './graphql-limiter.js';
import { type IncrementalPayload, settledStream } from './incremental.js';
import type { SluiceGraphqlOptions } from './options.js';

/** What envelop passes to `onExecute` (the part sluice reads). */
interface ExecuteArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
  contextValue: unknown;
}

/** What execution answers: a result, or the payloads of incremental delivery. */
type Executed = ExecutionResult | AsyncIterable<IncrementalPayload>;

/** envelop's execute function (the one in place when `onExecute` runs). */
type ExecuteFn = (args: ExecuteArgs) => MaybePromise<Executed>;

/**
 * The plugin `useSluice` returns: an envelop plugin (`onExecute`) that GraphQL Yoga also
 * takes, with Yoga's `onResponse` to write headers when the `headers` option asks for them.
 */
export interface SluicePlugin {
  /**
   * envelop's hook: costs and reserves before execution (a limited operation is answered
   * with `setResultAndStopExecution`), and wraps the execute function to settle after it.
   */
  onExecute(payload: {
    args: ExecuteArgs;
    executeFn: ExecuteFn;
    setExecuteFn: (fn: ExecuteFn) => void;
    setResultAndStopExecution: (result: ExecutionResult) => void;
  }): MaybePromise<void>;
  /** Yoga's hook: writes the rate-limit headers to the HTTP response (with `headers` only). */
  onResponse?(payload: {
    request: object;
    response: { headers: { set(n: string, v: string): void } };
  }): void;
}

type MaybePromise<T> = T | Promise<T>;

const isAsyncIterable = <T>(v: unknown): v is AsyncIterable<T> =>
  typeof (v as AsyncIterable<T>)?.[Symbol.asyncIterator] === 'function';

// envelop's helpers may answer a thenable that is not a Promise
const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof (v as PromiseLike<unknown> | null)?.then === 'function';

type Admitted = Begin & { allowed: true };

/** Puts `extensions.cost` on the last payload of a stream (none when it was cancelled). */
function lastCost(f: Finish, last: IncrementalPayload | undefined): void {
  if (last !== undefined && f.cost !== undefined)
    last.extensions = { ...last.extensions, cost: f.cost };
}

/**
 * GraphQL Yoga / envelop plugin: costs each operation before execution, reserves its
 * requested points against `limit`, and settles to the actual cost once the result is in
 * (`extensions.cost` = `{ requested, actual, throttleStatus }`). With `@defer` / `@stream`
 * (`@graphql-yoga/plugin-defer-stream`) it settles once the last payload has been delivered
 * (that payload carries `extensions.cost`) or the stream is cancelled, to what was delivered;
 * the HTTP headers, sent first, tell the state after reserving. A limited operation is not
 * executed: it answers a GraphQL error with `extensions.code` `'RATE_LIMITED'` and
 * `extensions.retryAfter` (seconds), and on Yoga HTTP status 429 with `Retry-After`.
 *
 * @throws {@link SluiceConfigError} at creation for a bad or unknown option.
 * @example
 * ```ts
 * const yoga = createYoga({ schema, plugins: [useSluice({ limit: Limit.perHour(5000), costModel: 'github-points' })] });
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the server's context, any shape by default
export function useSluice<Context = any>(options: SluiceGraphqlOptions<Context>): SluicePlugin {
  const limiter = new GraphqlLimiter<Context>(options, 'useSluice()');
  // Headers to write on the HTTP response, by Yoga's request (the context's `request`).
  // A limited answer needs none of this: Yoga writes its error's `extensions.http` status
  // and headers itself.
  const pending = new WeakMap<object, [string, string][]>();
  const headers = limiter.headers;
  function remember(context: unknown, list: [string, string][]): void {
    const request = (context as { request?: object } | null)?.request;
    if (typeof request === 'object' && request !== null && list.length > 0)
      pending.set(request, list);
  }
  // perf: no closure per operation but the execute wrapper; the helpers are made once, the
  // state travels as arguments, and nothing is a promise on a synchronous store.
  function settled(f: Finish, result: ExecutionResult, context: unknown): ExecutionResult {
    if (headers) remember(context, f.headers);
    const cost = f.cost;
    if (cost === undefined) return result;
    // perf: execute()'s result, extended in place (a copy cost more)
    const r = result as { extensions?: Record<string, unknown> };
    r.extensions = r.extensions === undefined ? { cost } : { ...r.extensions, cost };
    return result;
  }
  function executed(
    admitted: Admitted,
    result: Executed,
    context: unknown,
  ): MaybePromise<Executed> {
    if (isAsyncIterable<IncrementalPayload>(result)) {
      // @defer / @stream: settled once the last payload is delivered or the stream stops
      if (headers) remember(context, limiter.reservedHeaders(admitted));
      return settledStream(result, (delivered, last) => {
        const f = limiter.finish(admitted, delivered.data);
        if (f instanceof Promise) return f.then((x) => lastCost(x, last));
        lastCost(f, last);
      });
    }
    const f = limiter.finish(admitted, result.data);
    return f instanceof Promise
      ? f.then((x) => settled(x, result, context))
      : settled(f, result, context);
  }
  function decided(
    begin: Begin,
    context: unknown,
    execute: ExecuteFn,
    setExecuteFn: (fn: ExecuteFn) => void,
    stop: (r: ExecutionResult) => void,
  ): void {
    if (begin === undefined) return;
    if (!begin.allowed) {
      stop({ errors: [begin.error] });
      return;
    }
    // perf: the execute function wrapped rather than an `onExecuteDone` hook, which costs
    // envelop more per operation than this whole plugin
    setExecuteFn((a) => {
      const r = execute(a);
      return isThenable(r)
        ? Promise.resolve(r).then((x) => executed(begin, x, context))
        : executed(begin, r, context);
    });
  }
  const plugin: SluicePlugin = {
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const context = args.contextValue;
      let begin: Begin | Promise<Begin>;
      try {
        begin = limiter.begin(
          args.schema,
          args.document,
          args.operationName,
          args.variableValues,
          context as Context,
        );
      } catch (error) {
        return Promise.reject(error);
      }
      // perf: no promise when the decision was synchronous (a MemoryStore)
      if (begin instanceof Promise)
        return begin.then((b) =>
          decided(b, context, executeFn, setExecuteFn, setResultAndStopExecution),
        );
      decided(begin, context, executeFn, setExecuteFn, setResultAndStopExecution);
    },
  };
  // perf: a hook Yoga calls on every response only when there are headers to write
  if (headers) {
    plugin.onResponse = ({ request, response }) => {
      const list = pending.get(request);
      if (list === undefined) return;
      pending.delete(request);
      for (const [name, value] of list) response.headers.set(name, value);
    };
  }
  return plugin;
}
