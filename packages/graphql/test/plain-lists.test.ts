import { Limit, MemoryStore } from '@sluice/core';
import { queryCost, useSluice } from '@sluice/graphql';
import { buildSchema } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';

// A schema of plain lists (no first / last, no @cost): what each model charges up front,
// and the warnings when an operation would go uncharged.
const SDL = 'type Query { items: [Item!]! } type Item { id: ID! }';
const QUERY = '{ items { id } }';
const ITEMS = Array.from({ length: 1000 }, (_, i) => ({ id: String(i) }));

function yoga(options: Partial<Parameters<typeof useSluice>[0]>) {
  const warnings: string[] = [];
  const server = createYoga({
    schema: createSchema({ typeDefs: SDL, resolvers: { Query: { items: () => ITEMS } } }),
    plugins: [
      useSluice({
        limit: Limit.perHour(10),
        key: () => 'tenant',
        clock: () => 1_700_000_000_000,
        store: new MemoryStore(),
        logger: { warn: (m) => warnings.push(m) },
        ...options,
      }),
    ],
    logging: false,
  });
  const query = async () => {
    const res = await server.fetch('http://yoga/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: QUERY }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { query, warnings };
}

describe('plain lists', () => {
  it('are charged defaultListSize (100) objects up front: above a 10-point budget, refused', async () => {
    const schema = buildSchema(SDL);
    expect(queryCost(schema, QUERY)).toBe(100);
    expect(queryCost(schema, QUERY, { costModel: 'shopify' })).toBe(100);
    expect(queryCost(schema, QUERY, { defaultListSize: 7 })).toBe(7);
    const { query, warnings } = yoga({ costModel: 'objects' });
    const r = await query();
    expect(r.status).toBe(429);
    expect(r.body.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
    expect(warnings).toEqual([]);
  });

  it("'github-nodes' charges 0 for them: warned once, naming the field and the fix", async () => {
    const { query, warnings } = yoga({ costModel: 'github-nodes' });
    for (let i = 0; i < 12; i++) expect((await query()).status).toBe(200);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      "costModel 'github-nodes' charges 0 points for the list field Query.items",
    );
    expect(warnings[0]).toContain("fieldCosts: { 'Query.items': n }");
  });

  it('an actual cost more than 10x the up-front charge is warned about once', async () => {
    const { query, warnings } = yoga({ costModel: 'objects', defaultListSize: 1 });
    const first = await query();
    expect(first.status).toBe(200);
    expect(first.body.extensions.cost).toMatchObject({ requested: 1, actual: 1000 });
    expect((await query()).status).toBe(429); // in debt: the budget bites after the fact
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cost 1000 points but was charged 1 up front \(more than 10x\)/);
    expect(warnings[0]).toContain('raise defaultListSize');
  });

  it('defaultListSize 0 is warned about as charging nothing', async () => {
    const { query, warnings } = yoga({ defaultListSize: 0 });
    expect((await query()).status).toBe(200);
    expect(warnings[0]).toContain('charges 0 points for the list field Query.items');
  });
});
