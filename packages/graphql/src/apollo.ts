import type { DocumentNode, GraphQLSchema } from 'graphql';
import { type Begin, GraphqlLimiter } from './graphql-limiter.js';
import { type IncrementalPayload, settledStream } from './incremental.js';
import type { SluiceGraphqlOptions } from './options.js';

/** The part of Apollo Server's request context sluice reads (Apollo Server 4 and 5). */
interface ApolloRequestContext {
  schema: GraphQLSchema;
  document?: DocumentNode;
  operationName?: string | null;
  request: { variables?: Record<string, unknown> | null };
  contextValue: unknown;
  response: {
    http: { headers: { set(n: string, v: string): void }; status?: number };
    body?: {
      kind: string;
      singleResult?: { data?: unknown; extensions?: Record<string, unknown> };
      /** Incremental delivery (`@defer` / `@stream`, graphql 17): the first payload, then the others. */
      initialResult?: IncrementalPayload;
      subsequentResults?: AsyncIterable<IncrementalPayload>;
    };
  };
}

/** The Apollo Server plugin `sluiceApollo` returns. */
export interface SluiceApolloPlugin {
  /** Apollo's per-request hook: costs, reserves and settles the operation. */
  requestDidStart(): Promise<{
    didResolveOperation(rc: ApolloRequestContext): Promise<void>;
    willSendResponse(rc: ApolloRequestContext): Promise<void>;
  }>;
}

/**
 * Apollo Server (4 and 5) plugin: the same as {@link useSluice}. The operation is costed
 * once it is resolved (`didResolveOperation`); a limited one is answered with the
 * `'RATE_LIMITED'` GraphQL error (`extensions.retryAfter` in seconds), HTTP status 429 and
 * `Retry-After`; an admitted one is settled to its actual cost in `willSendResponse`, which
 * also writes `extensions.cost` and the rate-limit headers. Incremental delivery (`@defer` /
 * `@stream`, Apollo with graphql 17) is settled when its last payload is delivered (which then
 * carries `extensions.cost`) or the client goes away, on what was delivered.
 *
 * @throws {@link SluiceConfigError} at creation for a bad or unknown option.
 * @example
 * ```ts
 * new ApolloServer({ schema, plugins: [sluiceApollo({ limit: '1000/hour', costModel: 'shopify' })] });
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the server's context, any shape by default
export function sluiceApollo<Context = any>(
  options: SluiceGraphqlOptions<Context>,
): SluiceApolloPlugin {
  const limiter = new GraphqlLimiter<Context>(options, 'sluiceApollo()');
  return {
    async requestDidStart() {
      let begin: Begin;
      return {
        async didResolveOperation(rc) {
          if (rc.document === undefined) return;
          begin = await limiter.begin(
            rc.schema,
            rc.document,
            rc.operationName,
            rc.request.variables,
            rc.contextValue as Context,
          );
          if (begin !== undefined && !begin.allowed) {
            // Apollo reads `extensions.http` with a Map of headers (Yoga: a plain object).
            const ext = begin.error.extensions as { http?: { status: number; headers: unknown } };
            ext.http = { status: limiter.statusCode, headers: new Map(begin.headers) };
            throw begin.error;
          }
        },
        async willSendResponse(rc) {
          if (begin === undefined || !begin.allowed) return;
          const admitted = begin;
          const body = rc.response.body;
          if (body?.kind === 'incremental' && body.subsequentResults !== undefined) {
            // Settled once the last payload is delivered or the client goes away.
            for (const [name, value] of limiter.reservedHeaders(admitted))
              rc.response.http.headers.set(name, value);
            body.subsequentResults = settledStream(
              body.subsequentResults,
              async (delivered, last) => {
                const { cost } = await limiter.finish(admitted, delivered.data);
                if (last !== undefined && cost !== undefined)
                  last.extensions = { ...last.extensions, cost };
              },
              body.initialResult,
            );
            return;
          }
          const single = body?.kind === 'single' ? body.singleResult : undefined;
          const { cost, headers } = await limiter.finish(admitted, single?.data);
          for (const [name, value] of headers) rc.response.http.headers.set(name, value);
          if (single !== undefined && cost !== undefined) {
            single.extensions = { ...single.extensions, cost };
          }
        },
      };
    },
  };
}
