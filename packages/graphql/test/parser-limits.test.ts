// The guide's recommended setup (docs/guide/graphql.md, "Parser limits"): the cost budget
// paired with graphql-js's `maxTokens` and a depth limit. The cost is computed on a parsed
// document, so a document too big to parse cheaply must be refused before: a 10,000-level
// query was a 500 from graphql-js's parser (its stack overflows) and a 10,000-alias query
// cost ~190 ms of the event loop before its 429. With the limits both are a 400 with one
// GraphQL error, on Yoga and on Apollo Server; a query within them runs and is costed.
import { ApolloServer } from '@apollo/server';
import { Limit, MemoryStore, sluiceApollo, useSluice } from '@sluice/graphql';
import {
  type ASTVisitor,
  GraphQLError,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';

// --- the guide's setup ---
const MAX_TOKENS = 2000;
const MAX_DEPTH = 15;

/** Refuses an operation whose fields nest deeper than `max` (fragments followed). */
function depthLimit(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const depth = (set: SelectionSetNode, seen: Set<string>): number => {
      let deepest = 0;
      for (const s of set.selections) {
        let d = 0;
        if (s.kind === 'Field') d = s.selectionSet ? 1 + depth(s.selectionSet, seen) : 1;
        else if (s.kind === 'InlineFragment') d = depth(s.selectionSet, seen);
        else if (!seen.has(s.name.value)) {
          const fragment = context.getFragment(s.name.value);
          if (fragment) d = depth(fragment.selectionSet, new Set(seen).add(s.name.value));
        }
        if (d > deepest) deepest = d;
      }
      return deepest;
    };
    return {
      OperationDefinition(node: OperationDefinitionNode) {
        if (depth(node.selectionSet, new Set()) > max) {
          context.reportError(
            new GraphQLError(`Query nests deeper than ${max} fields`, { nodes: [node] }),
          );
        }
      },
    };
  };
}

/** Yoga: graphql-js's parser with `maxTokens`, and the depth limit. */
const parserLimits: Plugin = {
  onParse({ setParseFn }) {
    setParseFn((source, options) => parse(source, { ...options, maxTokens: MAX_TOKENS }));
  },
  onValidate({ addValidationRule }) {
    addValidationRule(depthLimit(MAX_DEPTH));
  },
};
// --- end of the guide's setup ---

/** What an answer's body holds, as far as these tests read it. */
interface Answer {
  data?: unknown;
  errors?: { message: string }[];
  extensions: { cost: { requested: number } };
}

const SDL = `
  type Query { node: Node! }
  type Node { id: ID! child: Node! }
`;
const node = (): { id: string; child: unknown } => ({
  id: '1',
  get child() {
    return node();
  },
});
const resolvers = { Query: { node } };

const nested = (levels: number) =>
  `{ node { ${'child { '.repeat(levels)}id${' }'.repeat(levels)} } }`;
const aliases = (n: number) =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: node { id }`).join(' ')} }`;

const QUERIES = [
  ['a 10,000-level query', nested(10_000), /tokens/],
  ['a 10,000-alias query', aliases(10_000), /tokens/],
  ['a 20-level query within the token limit', nested(20), /deeper than 15/],
] as const;

const budget = () => ({
  limit: Limit.perHour(1000).named('points'),
  key: () => 'tenant-1',
  store: new MemoryStore(),
});

describe('Yoga with the guide parser limits', () => {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: SDL, resolvers }),
    plugins: [parserLimits, useSluice(budget())],
    logging: false,
  });
  const post = async (query: string) => {
    const res = await yoga.fetch('http://yoga/graphql', {
      method: 'POST',
      // the GraphQL-over-HTTP media type: a request error is a 400 (application/json: 200)
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  };

  it.each(QUERIES)('%s is a 400 with one GraphQL error, never a 500', async (_, query, message) => {
    const r = await post(query);
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]!.message).toMatch(message);
    expect(r.body.data).toBeUndefined();
  });

  it('a query within the limits runs and is costed', async () => {
    const r = await post(nested(5));
    expect(r.status).toBe(200);
    expect(r.body.extensions.cost.requested).toBe(6);
  });
});

describe('Apollo Server with the guide parser limits', () => {
  const apollo = new ApolloServer({
    typeDefs: SDL,
    resolvers,
    parseOptions: { maxTokens: MAX_TOKENS },
    validationRules: [depthLimit(MAX_DEPTH)],
    plugins: [sluiceApollo(budget())],
  });
  beforeAll(() => apollo.start());
  afterAll(() => apollo.stop());

  it.each(QUERIES)('%s is a 400 with one GraphQL error, never a 500', async (_, query, message) => {
    const res = await apollo.executeOperation({ query });
    expect(res.http.status).toBe(400);
    const body = res.body as { kind: 'single'; singleResult: { errors?: { message: string }[] } };
    expect(body.singleResult.errors).toHaveLength(1);
    expect(body.singleResult.errors![0]!.message).toMatch(message);
  });

  it('a query within the limits runs and is costed', async () => {
    const res = await apollo.executeOperation({ query: nested(5) });
    const body = res.body as {
      singleResult: { errors?: unknown; extensions?: Answer['extensions'] };
    };
    expect(body.singleResult.errors).toBeUndefined();
    expect(body.singleResult.extensions!.cost.requested).toBe(6);
  });
});
