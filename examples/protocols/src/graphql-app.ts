// A GraphQL Yoga server with a budget of 1,000 points per hour per user, GitHub's node
// count as the cost model, the actual cost refunded after each query.
import { createServer, type Server } from 'node:http';
import { Limit, useSluice } from '@sluice/graphql';
import { createSchema, createYoga } from 'graphql-yoga';

const typeDefs = /* GraphQL */ `
  type Query { repositories(first: Int!): RepositoryConnection! }
  type RepositoryConnection { nodes: [Repository!]! }
  type Repository { name: String! }
`;

/** 40 repositories exist: a query asking for 150 is charged 150, then settled to 40. */
const REPOSITORIES = Array.from({ length: 40 }, (_, i) => ({ name: `repo-${i}` }));

export function graphqlServer(): Server {
  const yoga = createYoga({
    schema: createSchema({
      typeDefs,
      resolvers: {
        Query: {
          repositories: (_: unknown, { first }: { first: number }) => ({
            nodes: REPOSITORIES.slice(0, first),
          }),
        },
      },
    }),
    context: ({ request }) => ({ user: { id: request.headers.get('x-user') ?? undefined } }),
    plugins: [
      useSluice({
        limit: Limit.perHour(1000).named('points'),
        costModel: 'github-nodes',
        headers: 'draft-8',
      }),
    ],
    logging: false,
  });
  return createServer(yoga);
}
