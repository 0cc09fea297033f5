import { SluiceConfigError } from '@sluice/core';
import { COST_MODELS, queryCost } from '@sluice/graphql';
import { GITHUB_COMPLEX, GITHUB_SIMPLE, githubSchema, itemsSchema } from './schemas.js';

describe("GitHub models, on GitHub's published examples", () => {
  it('counts 550 nodes for the simple query and 22,060 for the complex one', () => {
    expect(queryCost(githubSchema, GITHUB_SIMPLE, { costModel: 'github-nodes' })).toBe(550);
    expect(queryCost(githubSchema, GITHUB_COMPLEX, { costModel: 'github-nodes' })).toBe(22_060);
  });

  it('scores points as requests per connection / 100, rounded, at least 1', () => {
    // simple: 1 (repositories) + 50 (issues of each repository) = 51 requests -> 1 point
    expect(queryCost(githubSchema, GITHUB_SIMPLE, { costModel: 'github-points' })).toBe(1);
    // complex: 1 + 50 + 50*20 + 50 + 50*20 + 1 = 2,102 requests -> 21 points
    expect(queryCost(githubSchema, GITHUB_COMPLEX, { costModel: 'github-points' })).toBe(21);
  });

  it('takes first / last from variables, and the larger of the two', () => {
    const q = `query($n: Int) { viewer { repositories(first: $n) { edges { node { name } } } } }`;
    expect(queryCost(githubSchema, q, { costModel: 'github-nodes', variables: { n: 7 } })).toBe(7);
    const both = `{ viewer { repositories(first: 3, last: 9) { edges { node { name } } } } }`;
    expect(queryCost(githubSchema, both, { costModel: 'github-nodes' })).toBe(9);
  });
});

describe('Shopify model', () => {
  it('costs a connection 2 plus its items, objects 1, scalars 0', () => {
    // 2 (repositories) + 50 * (1 item + 0 name) = 52
    const q = `{ viewer { repositories(first: 50) { edges { node { name } } } } }`;
    expect(queryCost(githubSchema, q, { costModel: 'shopify' })).toBe(1 + 52);
    // + pageInfo (object 1) + totalCount (scalar 0)
    const more = `{ viewer { repositories(first: 50) { totalCount pageInfo { hasNextPage } edges { node { name } } } } }`;
    expect(queryCost(githubSchema, more, { costModel: 'shopify' })).toBe(1 + 52 + 1);
  });
});

describe('objects model, @cost and overrides', () => {
  it('multiplies nodes lists by first, honours @cost on fields and types', () => {
    expect(queryCost(itemsSchema, '{ items(first: 150) { nodes { id } } }')).toBe(1 + 150);
    expect(queryCost(itemsSchema, '{ shop { name } }')).toBe(3);
    // search: @cost(weight: 10) per item, default list size 100
    expect(queryCost(itemsSchema, '{ search(text: "a") { id } }')).toBe(1000);
    expect(queryCost(itemsSchema, '{ search(text: "a") { id } }', { defaultListSize: 5 })).toBe(50);
  });

  it('applies typeCosts and fieldCosts over the model and @cost', () => {
    expect(queryCost(itemsSchema, '{ shop { name } }', { typeCosts: { Shop: 7 } })).toBe(7);
    expect(
      queryCost(itemsSchema, '{ search(text: "a") { id } }', { fieldCosts: { 'Query.search': 4 } }),
    ).toBe(400);
  });

  it('merges fragments and aliases by response key, honours @skip / @include', () => {
    const q = `query($s: Boolean!) { a: items(first: 10) { ...F } b: items(first: 5) { nodes { id } }
      shop @skip(if: $s) { name } } fragment F on ItemConnection { nodes { id price } }`;
    expect(queryCost(itemsSchema, q, { variables: { s: true } })).toBe(11 + 6);
    expect(queryCost(itemsSchema, q, { variables: { s: false } })).toBe(11 + 6 + 3);
  });

  it('refuses bad options with SluiceConfigError naming them', () => {
    expect(() =>
      queryCost(itemsSchema, '{ shop { name } }', { costModel: 'gitlab' as never }),
    ).toThrow(expect.objectContaining({ option: 'costModel' }));
    expect(() => queryCost(itemsSchema, '{ shop { name } }', { typeCosts: { Shop: -1 } })).toThrow(
      SluiceConfigError,
    );
    expect(() => queryCost(itemsSchema, '{ shop { name } }', { defaultListSize: 1.5 })).toThrow(
      expect.objectContaining({ option: 'defaultListSize' }),
    );
    expect(Object.keys(COST_MODELS)).toEqual([
      'objects',
      'shopify',
      'github-nodes',
      'github-points',
    ]);
  });
});
