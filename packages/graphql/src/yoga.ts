import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { type Begin, type Finish, GraphqlLimiter } from './graphql-limiter.js';
import type { SluiceGraphqlOptions } from './options.js';

/** What envelop passes to `onExecute` (the part sluice reads). */
interface ExecuteArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
  contextValue: unknown;
}

/**
 * The plugin `useSluice` returns: an envelop plugin (`onExecute`) that GraphQL Yoga also
 * takes, with Yoga's `onResponse` to write headers.
 */
export interface SluicePlugin {
  /** envelop's hook: costs and reserves before execution, settles after. */
  onExecute(payload: {
    args: ExecuteArgs;
    setResultAndStopExecution: (result: ExecutionResult) => void;
  }): MaybePromise<void | { onExecuteDone(payload: ExecuteDone): MaybePromise<void> }>;
  /** Yoga's hook: writes the rate-limit headers (and `Retry-After`) to the HTTP response. */
  onResponse(payload: {
    request: object;
    response: { headers: { set(n: string, v: string): void } };
  }): void;
}

type MaybePromise<T> = T | Promise<T>;

/** What envelop passes to `onExecuteDone`. */
interface ExecuteDone {
  result: ExecutionResult | AsyncIterable<ExecutionResult>;
  setResult: (result: ExecutionResult) => void;
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof (v as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === 'function';

/**
 * GraphQL Yoga / envelop plugin: costs each operation before execution, reserves its
 * requested points against `limit`, and settles to the actual cost once the result is in
 * (`extensions.cost` = `{ requested, actual, throttleStatus }`). A limited operation is not
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
  const pending = new WeakMap<object, [string, string][]>();
  const remember = (context: unknown, headers: [string, string][]) => {
    const request = (context as { request?: object } | null)?.request;
    if (typeof request === 'object' && request !== null && headers.length > 0)
      pending.set(request, headers);
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const { schema, document, operationName, variableValues, contextValue } = args;
      const after = (begin: Begin) => {
        if (begin === undefined) return;
        if (!begin.allowed) {
          remember(contextValue, begin.headers);
          setResultAndStopExecution({ errors: [begin.error] });
          return;
        }
        return {
          onExecuteDone({ result }: ExecuteDone) {
            if (isAsyncIterable(result)) {
              const f = limiter.finish(begin, undefined, true);
              return f instanceof Promise ? f.then(() => undefined) : undefined;
            }
            const apply = ({ cost, headers }: Finish) => {
              remember(contextValue, headers);
              if (cost === undefined) return;
              // perf: execute()'s result, extended in place (a copy through setResult cost more)
              const r = result as { extensions?: Record<string, unknown> };
              r.extensions = r.extensions === undefined ? { cost } : { ...r.extensions, cost };
            };
            const f = limiter.finish(begin, result.data);
            return f instanceof Promise ? f.then(apply) : apply(f);
          },
        };
      };
      let begin: Begin | Promise<Begin>;
      try {
        begin = limiter.begin(
          schema,
          document,
          operationName,
          variableValues,
          contextValue as Context,
        );
      } catch (error) {
        return Promise.reject(error);
      }
      // perf: no promise when the decision was synchronous (a MemoryStore)
      return begin instanceof Promise ? begin.then(after) : after(begin);
    },
    onResponse({ request, response }) {
      const headers = pending.get(request);
      if (headers === undefined) return;
      pending.delete(request);
      for (const [name, value] of headers) response.headers.set(name, value);
    },
  };
}
