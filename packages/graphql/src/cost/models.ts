import { SluiceConfigError } from '@sluice/core';

/**
 * How a query's points are counted. Every field is one of: a scalar or enum field, an
 * object field, a connection (a field with a `first` / `last` argument returning an object
 * whose `edges` / `nodes` lists hold the page), or an item of a connection's page.
 *
 * A list is multiplied by its page size: the `first` / `last` argument of the field itself
 * (a list field) or of its connection (for `edges` / `nodes`), else `defaultListSize`.
 */
export interface CostModel {
  /** Points of a scalar or enum field. */
  readonly scalar: number;
  /** Points of an object field (one per object returned: per item of a list). */
  readonly object: number;
  /** Points of a connection field itself (once per time it is fetched). */
  readonly connection: number;
  /** Points of each item of a connection's page (an `edges` element or a `nodes` element). */
  readonly item: number;
  /** The total's last step (GitHub divides by 100); the identity when absent. */
  readonly total?: (points: number) => number;
}

/**
 * The models sluice ships, each the published rules of an API:
 *
 * - `'objects'` (default): objects 1, scalars 0, a connection's items 1 each (the wrapper
 *   edge free), lists multiplied by `first` / `last`.
 * - `'shopify'`: Shopify's calculated query cost: objects 1, scalars and enums 0, a
 *   connection 2 plus its items (1 each, multiplied by `first` / `last` with their fields).
 * - `'github-nodes'`: GitHub's node count: each item of each connection's page, multiplied by
 *   the page sizes above it (550 and 22,060 in GitHub's two published examples).
 * - `'github-points'`: GitHub's rate-limit score: the number of requests needed to fetch each
 *   connection (the product of the page sizes above it), summed, divided by 100 and
 *   rounded, at least 1.
 */
export type CostModelName = 'objects' | 'shopify' | 'github-nodes' | 'github-points';

/** The built-in cost models by name (see {@link CostModelName}). */
export const COST_MODELS: Readonly<Record<CostModelName, CostModel>> = Object.freeze({
  objects: { scalar: 0, object: 1, connection: 1, item: 1 },
  shopify: { scalar: 0, object: 1, connection: 2, item: 1 },
  'github-nodes': { scalar: 0, object: 0, connection: 0, item: 1 },
  'github-points': {
    scalar: 0,
    object: 0,
    connection: 1,
    item: 0,
    total: (points: number) => Math.max(1, Math.round(points / 100)),
  },
});

/** A model by name, or the user's own, checked. */
export function parseCostModel(value: unknown): CostModel {
  if (value === undefined) return COST_MODELS.objects;
  if (typeof value === 'string' && Object.hasOwn(COST_MODELS, value)) {
    return COST_MODELS[value as CostModelName];
  }
  const m = value as CostModel;
  const ok =
    m !== null &&
    typeof m === 'object' &&
    (['scalar', 'object', 'connection', 'item'] as const).every(
      (k) => typeof m[k] === 'number' && Number.isFinite(m[k]) && m[k] >= 0,
    ) &&
    (m.total === undefined || typeof m.total === 'function');
  if (!ok) {
    throw new SluiceConfigError(
      'costModel',
      value,
      `${Object.keys(COST_MODELS)
        .map((k) => `'${k}'`)
        .join(', ')} or { scalar, object, connection, item, total? } (numbers >= 0)`,
    );
  }
  return m;
}
