import { SluiceConfigError } from '@sluice/core';
import { type DocumentNode, type GraphQLSchema, parse } from 'graphql';
import { actualCost, readsVariables, requestedCost } from './cost.js';
import { type CostModel, type CostModelName, parseCostModel } from './models.js';
import {
  buildTree,
  type CostNode,
  type CostOverrides,
  costlyOnly,
  type FieldInfoCache,
  fragmentsOf,
  operationOf,
} from './tree.js';

/** Options of the cost analysis (`useSluice`, `sluiceApollo`, {@link queryCost}). */
export interface CostOptions {
  /**
   * How points are counted: `'objects'`, `'shopify'`, `'github-nodes'`, `'github-points'`, or
   * your own {@link CostModel}.
   * @default 'objects' (objects 1, scalars 0, connection items 1, lists × first/last)
   */
  costModel?: CostModelName | CostModel;
  /** Points per object of a type, replacing the model's: `{ Repository: 2 }`. @default {} */
  typeCosts?: Readonly<Record<string, number>>;
  /** Points of a field, replacing the model's: `{ 'Query.search': 10 }`. @default {} */
  fieldCosts?: Readonly<Record<string, number>>;
  /**
   * Items assumed for a list field without `first` / `last` (a plain list, e.g.
   * `items: [Item!]!`), so the list is charged up front: each of its objects' points times
   * this. The actual cost settles to what the answer holds, the difference given back; an
   * answer far above it (more than {@link UNDERCHARGE_RATIO} times) is warned about once.
   * 0 charges such lists nothing up front (warned about too).
   * @default 100 (GitHub's largest page; Grafbase's `list_size` example)
   */
  defaultListSize?: number;
}

/** {@link CostOptions.defaultListSize}'s default: 100 items. */
export const DEFAULT_LIST_SIZE = 100;

/**
 * How many times its up-front charge an operation's actual cost may be before the limiter
 * warns (once): above it, the budget is only enforced after the work was done.
 */
export const UNDERCHARGE_RATIO = 10;

/** The parsed {@link CostOptions}. */
export interface CostConfig {
  readonly model: CostModel;
  /** The model's name for messages (`'your own model'` for a {@link CostModel} object). */
  readonly modelName: string;
  readonly overrides: CostOverrides;
  readonly defaultListSize: number;
}

function pointsMap(name: string, value: unknown): Map<string, number> {
  if (value === undefined) return new Map();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SluiceConfigError(name, value, 'an object of numbers >= 0');
  }
  const map = new Map<string, number>();
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new SluiceConfigError(`${name}.${k}`, v, 'a finite number >= 0');
    }
    map.set(k, v);
  }
  return map;
}

/** Checks the cost options. @throws SluiceConfigError naming the option. */
export function parseCostOptions(options: CostOptions): CostConfig {
  const size = options.defaultListSize ?? DEFAULT_LIST_SIZE;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new SluiceConfigError('defaultListSize', size, 'an integer >= 0');
  }
  return {
    model: parseCostModel(options.costModel),
    modelName:
      typeof options.costModel === 'string'
        ? `costModel '${options.costModel}'`
        : options.costModel === undefined
          ? "costModel 'objects'"
          : 'your costModel',
    overrides: {
      types: pointsMap('typeCosts', options.typeCosts),
      fields: pointsMap('fieldCosts', options.fieldCosts),
    },
    defaultListSize: size,
  };
}

/** An operation analysed once: its tree, costed per request with that request's variables. */
export interface OperationCost {
  /** The fields that can cost points (those that never can are left out). */
  readonly tree: readonly CostNode[];
  /** The requested cost with `variables`. */
  requested(variables?: Readonly<Record<string, unknown>> | null): number;
  /** The actual cost of a result's `data`. */
  actual(data: unknown): number;
  /** Its list fields of objects the model charges nothing for (`Type.field`), if any. */
  readonly zeroLists: readonly string[];
}

/**
 * Static cost analysis with a cache: an operation's tree is built once per schema, document
 * and operation name (GraphQL servers reuse parsed documents), then costed per request.
 */
export class CostAnalyzer {
  readonly #config: CostConfig;
  readonly #fieldInfo: FieldInfoCache = new WeakMap();
  readonly #cache = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, OperationCost>>>();

  constructor(config: CostConfig) {
    this.#config = config;
  }

  /** The analysed operation, or `undefined` when the document has no such operation. */
  operation(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName?: string | null,
  ): OperationCost | undefined {
    let byDoc = this.#cache.get(schema);
    if (byDoc === undefined) {
      byDoc = new WeakMap();
      this.#cache.set(schema, byDoc);
    }
    let byName = byDoc.get(document);
    if (byName === undefined) {
      byName = new Map();
      byDoc.set(document, byName);
    }
    const name = operationName ?? '';
    let op = byName.get(name);
    if (op === undefined) {
      const built = this.#build(schema, document, operationName);
      if (built === undefined) return undefined;
      op = built;
      byName.set(name, op);
    }
    return op;
  }

  #build(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ): OperationCost | undefined {
    const operation = operationOf(document, operationName);
    if (operation === undefined) return undefined;
    const root =
      operation.operation === 'query'
        ? schema.getQueryType()
        : operation.operation === 'mutation'
          ? schema.getMutationType()
          : schema.getSubscriptionType();
    if (root == null) return undefined;
    const { model, overrides, defaultListSize } = this.#config;
    const zeroLists = new Set<string>();
    const tree = costlyOnly(
      buildTree(
        {
          schema,
          model,
          overrides,
          defaultListSize,
          zeroLists,
          fragments: fragmentsOf(document),
          fieldInfo: this.#fieldInfo,
        },
        root,
        operation.selectionSet,
      ),
    );
    // perf: the same for every request when no variable changes it
    const fixed = readsVariables(tree) ? undefined : requestedCost(tree, model, undefined);
    return {
      tree,
      requested:
        fixed === undefined ? (variables) => requestedCost(tree, model, variables) : () => fixed,
      actual: (data) => actualCost(tree, model, data),
      zeroLists: [...zeroLists],
    };
  }
}

/**
 * The requested cost of `query` against `schema`: what `useSluice` / `sluiceApollo` reserve
 * before execution.
 *
 * @throws {@link SluiceConfigError} for bad options; `Error` when the document has no such
 *   operation; a `GraphQLError` for a query that does not parse.
 * @example
 * ```ts
 * queryCost(schema, 'query { viewer { repositories(first: 50) { edges { node { name } } } } }',
 *   { costModel: 'github-nodes' }); // 50
 * ```
 */
export function queryCost(
  schema: GraphQLSchema,
  query: string | DocumentNode,
  options: CostOptions & {
    variables?: Readonly<Record<string, unknown>>;
    operationName?: string;
  } = {},
): number {
  const { variables, operationName, ...cost } = options;
  const document = typeof query === 'string' ? parse(query) : query;
  const op = new CostAnalyzer(parseCostOptions(cost)).operation(schema, document, operationName);
  if (op === undefined) throw new Error('sluice: the document has no such operation');
  return op.requested(variables);
}
