import { buildSchema, type GraphQLSchema } from 'graphql';

/** GitHub's shapes for its two published node-count examples (connections with edges / node). */
export const githubSchema: GraphQLSchema = buildSchema(`
  type Query { viewer: User! }
  type User { login: String! repositories(first: Int, last: Int): RepositoryConnection!
              followers(first: Int, last: Int): FollowerConnection! }
  type FollowerConnection { edges: [FollowerEdge] }
  type FollowerEdge { node: User }
  type RepositoryConnection { totalCount: Int! edges: [RepositoryEdge] pageInfo: PageInfo! }
  type PageInfo { hasNextPage: Boolean! }
  type RepositoryEdge { cursor: String! node: Repository }
  type Repository { name: String!
    issues(first: Int, last: Int): IssueConnection!
    pullRequests(first: Int, last: Int): PullRequestConnection! }
  type IssueConnection { totalCount: Int! edges: [IssueEdge] }
  type IssueEdge { node: Issue }
  type Issue { title: String! bodyHTML: String! comments(first: Int, last: Int): CommentConnection! }
  type PullRequestConnection { edges: [PullRequestEdge] }
  type PullRequestEdge { node: PullRequest }
  type PullRequest { title: String! comments(first: Int, last: Int): CommentConnection! }
  type CommentConnection { edges: [CommentEdge] }
  type CommentEdge { node: Comment }
  type Comment { bodyHTML: String! }
`);

/** GitHub's "simple query" (550 nodes) and "complex query" (22,060 nodes), verbatim in shape. */
export const GITHUB_SIMPLE = `query { viewer { repositories(first: 50) { edges { repository:node { name
  issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }`;
export const GITHUB_COMPLEX = `query { viewer { repositories(first: 50) { edges { repository:node { name
  pullRequests(first: 20) { edges { pullRequest:node { title
    comments(first: 10) { edges { comment:node { bodyHTML } } } } } }
  issues(first: 20) { totalCount edges { issue:node { title bodyHTML
    comments(first: 10) { edges { comment:node { bodyHTML } } } } } } } } }
  followers(first: 10) { edges { follower:node { login } } } } }`;

/** A budget test's schema: `items(first: n)` returns `available` items (at most n). */
export const ITEMS_SDL = `
  directive @cost(weight: Int!) on FIELD_DEFINITION | OBJECT
  type Query { items(first: Int!): ItemConnection! shop: Shop! search(text: String!): [Item!]! @cost(weight: 10) }
  type Shop @cost(weight: 3) { name: String! }
  type ItemConnection { nodes: [Item!]! }
  type Item { id: ID! price: Int! }
`;

export const itemsSchema: GraphQLSchema = buildSchema(ITEMS_SDL);

/** Resolvers serving `available` items whatever `first` asks (fewer: a shorter page). */
export function itemResolvers(available: { count: number }) {
  return {
    Query: {
      items: (_: unknown, { first }: { first: number }) => ({
        nodes: Array.from({ length: Math.min(first, available.count) }, (_, i) => ({
          id: String(i),
          price: i,
        })),
      }),
      shop: () => ({ name: 'x' }),
      search: () => [],
    },
  };
}
