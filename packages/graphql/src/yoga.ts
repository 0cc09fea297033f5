import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { GraphqlLimiter } from './graphql-limiter.js';
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
  onExecute(payload: {
    args: ExecuteArgs;
    setResultAndStopExecution: (result: ExecutionResult) => void;
  }): Promise<void | {
    onExecuteDone(payload: {
      result: ExecutionResult | AsyncIterable<ExecutionResult>;
      setResult: (result: ExecutionResult) => void;
    }): Promise<void>;
  }>;
  onResponse(payload: {
    request: object;
    response: { headers: { set(n: string, v: string): void } };
  }): void;
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
    async onExecute({ args, setResultAndStopExecution }) {
      const { schema, document, operationName, variableValues, contextValue } = args;
      const begin = await limiter.begin(
        schema,
        document,
        operationName,
        variableValues,
        contextValue as Context,
      );
      if (begin === undefined) return;
      if (!begin.allowed) {
        remember(contextValue, begin.headers);
        setResultAndStopExecution({ errors: [begin.error] });
        return;
      }
      return {
        async onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result)) {
            await limiter.finish(begin, undefined, true);
            return;
          }
          const { cost, headers } = await limiter.finish(begin, result.data);
          remember(contextValue, headers);
          if (cost !== undefined)
            setResult({ ...result, extensions: { ...result.extensions, cost } });
        },
      };
    },
    onResponse({ request, response }) {
      const headers = pending.get(request);
      if (headers === undefined) return;
      pending.delete(request);
      for (const [name, value] of headers) response.headers.set(name, value);
    },
  };
}
