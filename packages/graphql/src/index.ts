/**
 * `@sluice/graphql`: GraphQL query cost reserved against a points budget before execution
 * and settled to the actual cost after (Shopify's requested / actual cost, GitHub's nodes and
 * points), for GraphQL Yoga / envelop (`useSluice`) and Apollo Server (`sluiceApollo`).
 *
 * @packageDocumentation
 */
// The application author's names of @sluice/core (its src/index.ts, reviewed in
// packages/core/test/exports/index.txt), as every adapter re-exports them; this package's
// export list shows each change too.
export * from '@sluice/core';
export type { SluiceApolloPlugin } from './apollo.js';
export { sluiceApollo } from './apollo.js';
export type { CostOptions } from './cost/analyzer.js';
export { DEFAULT_LIST_SIZE, queryCost, UNDERCHARGE_RATIO } from './cost/analyzer.js';
export type { CostModel, CostModelName } from './cost/models.js';
export { COST_MODELS } from './cost/models.js';
export type { CostExtension } from './graphql-limiter.js';
export type { SluiceGraphqlOptions } from './options.js';
export type { SluicePlugin } from './yoga.js';
export { useSluice } from './yoga.js';
