// Static cost analysis of a 100-field query (`bench:protocols -- --only cost`), p50 / p99 µs: the
// per-request path (cached tree), a new document, and queryCost().
import { queryCost } from '@sluice/graphql';
import { buildSchema, parse } from 'graphql';
// The analyser the plugin uses (not a public name): from the package's source.
import { CostAnalyzer, parseCostOptions } from '../../../packages/graphql/src/cost/analyzer.js';

const FIELDS = 100;

/** A schema and a 100-field query: 10 connections of 9 scalar fields each, under `viewer`. */
export function hundredFieldCase() {
  const scalars = Array.from({ length: 8 }, (_, i) => `f${i}: String`).join(' ');
  const conns = Array.from({ length: 10 }, (_, i) => `c${i}(first: Int): Conn`).join(' ');
  const typeDefs = `type Query { viewer: Viewer } type Viewer { ${conns} }
    type Conn { nodes: [Item] } type Item { ${scalars} }`;
  const schema = buildSchema(typeDefs);
  const item = Array.from({ length: 8 }, (_, i) => `f${i}`).join(' ');
  // viewer (1) + 10 x (c_i (1) + nodes (1) + 8 scalars) = 101 selections
  const query = `query($n: Int) { viewer { ${Array.from({ length: 10 }, (_, i) => `c${i}(first: $n) { nodes { ${item} } }`).join(' ')} } }`;
  return { typeDefs, schema, query, fields: FIELDS };
}

/** The query string of a Yoga bench request: `small` (hello world) or `wide` (100 fields, n = 5). */
export function yogaQuery(query: 'small' | 'wide'): string {
  if (query === 'small')
    return `query=${encodeURIComponent('{ viewer { items(first: 5) { nodes { id name } } } }')}`;
  const variables = encodeURIComponent(JSON.stringify({ n: 5 }));
  return `query=${encodeURIComponent(hundredFieldCase().query)}&variables=${variables}`;
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  samples.sort((a, b) => a - b);
  return {
    p50: samples[Math.floor(samples.length * 0.5)]!,
    p99: samples[Math.floor(samples.length * 0.99)]!,
  };
}

export function benchCost(iterations = 20_000): Record<string, number> {
  const { schema, query } = hundredFieldCase();
  const document = parse(query);
  // The per-request path: one analyser (its cache) reused, as the plugin does.
  const analyzer = new CostAnalyzer(parseCostOptions({}));
  const cached: number[] = [];
  let sink = 0;
  for (let i = 0; i < iterations; i++) {
    const t = process.hrtime.bigint();
    const op = analyzer.operation(schema, document)!;
    sink += op.requested({ n: (i % 50) + 1 });
    cached.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  const cold: number[] = [];
  for (let i = 0; i < iterations / 10; i++) {
    const doc = parse(query); // a new document: its tree is built, then costed
    const t = process.hrtime.bigint();
    sink += analyzer.operation(schema, doc)!.requested({ n: 10 });
    cold.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  // queryCost(): options parsed and a new analyser (no cache) per call
  const once: number[] = [];
  for (let i = 0; i < iterations / 10; i++) {
    const t = process.hrtime.bigint();
    sink += queryCost(schema, document, { variables: { n: 10 } });
    once.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  if (sink === 42) console.log(sink);
  const c = percentiles(cached);
  const k = percentiles(cold);
  const q = percentiles(once);
  return {
    cachedP50Us: c.p50,
    cachedP99Us: c.p99,
    newDocumentP50Us: k.p50,
    newDocumentP99Us: k.p99,
    queryCostP50Us: q.p50,
    queryCostP99Us: q.p99,
  };
}
