import type { CostModel } from './models.js';
import type { CostNode, PageSize } from './tree.js';

type Variables = Readonly<Record<string, unknown>> | null | undefined;

/** Whether the requested cost depends on variables (a variable page size, `@skip` / `@include`). */
export function readsVariables(nodes: readonly CostNode[]): boolean {
  for (const n of nodes) {
    if (n.when?.some((c) => c.variable !== '')) return true;
    if (n.list !== undefined && typeof n.list !== 'number') return true;
    if (readsVariables(n.children)) return true;
  }
  return false;
}

/** A page size's value with `variables`: a whole number >= 0 (a bad value counts as the fallback). */
function sizeOf(size: PageSize, variables: Variables): number {
  if (typeof size === 'number') return size;
  const v = variables?.[size.variable];
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : size.fallback;
}

/** Whether `@skip` / `@include` leave the field out with `variables`. */
function skipped(node: CostNode, variables: Variables): boolean {
  const when = node.when;
  if (when === undefined) return false;
  for (const c of when) {
    if (c.variable === '') return true;
    if (Boolean(variables?.[c.variable]) !== c.include) return true;
  }
  return false;
}

function requestedOf(nodes: readonly CostNode[], variables: Variables): number {
  let sum = 0;
  for (const n of nodes) {
    if (skipped(n, variables)) continue;
    const each = n.points + (n.children.length === 0 ? 0 : requestedOf(n.children, variables));
    sum += n.list === undefined ? each : sizeOf(n.list, variables) * each;
  }
  return sum;
}

/**
 * The requested cost of an operation's tree: every list at its page size (`first` / `last`,
 * else the default list size), in the model's points, after the model's `total` step.
 */
export function requestedCost(
  tree: readonly CostNode[],
  model: CostModel,
  variables: Variables,
): number {
  const points = requestedOf(tree, variables);
  return model.total === undefined ? points : model.total(points);
}

function actualOf(nodes: readonly CostNode[], value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const object = value as Record<string, unknown>;
  let sum = 0;
  for (const n of nodes) {
    const v = object[n.key];
    if (v === null || v === undefined) continue;
    const leaf = n.children.length === 0;
    if (Array.isArray(v)) {
      for (const item of v)
        if (item !== null && item !== undefined)
          sum += n.points + (leaf ? 0 : actualOf(n.children, item));
    } else sum += n.points + (leaf ? 0 : actualOf(n.children, v));
  }
  return sum;
}

/**
 * The actual cost of an executed operation: the same points for what its `data` holds (a null
 * object, a shorter page and a field absent cost nothing), after the model's `total` step;
 * never above what the tree could request for these lengths. 0 with no data.
 */
export function actualCost(tree: readonly CostNode[], model: CostModel, data: unknown): number {
  if (data === null || data === undefined) return 0;
  const points = actualOf(tree, data);
  return model.total === undefined ? points : model.total(points);
}
