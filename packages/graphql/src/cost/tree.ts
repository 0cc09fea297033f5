import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { CostModel } from './models.js';

/**
 * A page size: a number, or the name of a variable holding it (read per request), with the
 * fallback when the variable is missing.
 */
export type PageSize = number | { readonly variable: string; readonly fallback: number };

/** A field of an operation, ready to be costed many times (the document's shape is fixed). */
export interface CostNode {
  /** The key of the field in the result (its alias, else its name). */
  readonly key: string;
  /** Points per object (per item when `list`). */
  readonly points: number;
  /** `undefined`: a single value; else the list's page size (static multiplier). */
  readonly list: PageSize | undefined;
  /** The selected fields, merged by response key. */
  readonly children: readonly CostNode[];
  /** `@skip` / `@include` conditions on variables: the field is left out when one says so. */
  readonly when?: readonly { readonly variable: string; readonly include: boolean }[];
}

/** Per-type and per-field points replacing the model's (`Type` or `Type.field`). */
export interface CostOverrides {
  /** Points per object of a type, e.g. `{ Repository: 2 }`. */
  readonly types: ReadonlyMap<string, number>;
  /** Points of a field, e.g. `{ 'Query.search': 10 }`. */
  readonly fields: ReadonlyMap<string, number>;
}

/** What the schema says of one field of one type: looked up once per analyser. */
export interface FieldInfo {
  readonly named: GraphQLNamedType;
  readonly isList: boolean;
  readonly isComposite: boolean;
  readonly isObject: boolean;
  /** The field's points from `fieldCosts` or its `@cost`, if any. */
  readonly fieldPoints: number | undefined;
  /** The named type's points from `typeCosts` or its `@cost`, if any. */
  readonly typePoints: number | undefined;
}

/** Field facts by type and field name (a type object belongs to one schema). */
export type FieldInfoCache = WeakMap<GraphQLNamedType, Map<string, FieldInfo | null>>;

/** What building a tree needs besides the document. */
export interface TreeContext {
  readonly fieldInfo: FieldInfoCache;
  readonly schema: GraphQLSchema;
  readonly model: CostModel;
  readonly overrides: CostOverrides;
  /** Items of a list without `first` / `last`. */
  readonly defaultListSize: number;
  /**
   * Collects the list fields of objects (not a connection's page) that the model charges
   * nothing for, as `Type.field`: their items are never counted, so never limited.
   */
  readonly zeroLists?: Set<string>;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

const PAGE_ARGS = ['first', 'last'];

/** The operation `name` of `document` (the only one when `name` is missing), or `undefined`. */
export function operationOf(
  document: DocumentNode,
  name: string | null | undefined,
): OperationDefinitionNode | undefined {
  let found: OperationDefinitionNode | undefined;
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    if (name == null) {
      if (found !== undefined) return undefined;
      found = d;
    } else if (d.name?.value === name) return d;
  }
  return found;
}

/** The fragments of `document` by name. */
export function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const map = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) map.set(d.name.value, d);
  }
  return map;
}

/** The cost tree of `operation`'s top-level selection on `root`. */
export function buildTree(
  ctx: TreeContext,
  root: GraphQLNamedType,
  selection: SelectionSetNode,
): CostNode[] {
  return childrenOf(ctx, root, selection, undefined);
}

/** A `@cost(weight: …)` directive's weight on a schema element, if any. */
function directiveCost(node: { astNode?: unknown } | undefined): number | undefined {
  const ast = (node as { astNode?: { directives?: readonly DirectiveLike[] } } | undefined)
    ?.astNode;
  const d = ast?.directives?.find((x) => x.name.value === 'cost');
  const arg = d?.arguments?.find((a) => a.name.value === 'weight');
  const v = arg?.value;
  if (v?.kind === Kind.INT || v?.kind === Kind.FLOAT || v?.kind === Kind.STRING) {
    const n = Number(v.value);
    return Number.isFinite(n) && n >= 0 ? n : undefined;
  }
  return undefined;
}

interface DirectiveLike {
  name: { value: string };
  arguments?: readonly { name: { value: string }; value: ValueNode }[];
}

/** Fields of `selection` on `parent`, merged by response key; `page`: size of the enclosing connection. */
function childrenOf(
  ctx: TreeContext,
  parent: GraphQLNamedType,
  selection: SelectionSetNode,
  page: PageSize | undefined,
): CostNode[] {
  const byKey = new Map<string, { field: FieldNode[]; type: GraphQLNamedType }>();
  collect(ctx, parent, selection, byKey, new Set());
  const out: CostNode[] = [];
  for (const [key, { field: nodes, type }] of byKey) {
    const node = costNode(ctx, type, key, nodes, page);
    if (node !== undefined) out.push(node);
  }
  return out;
}

function collect(
  ctx: TreeContext,
  parent: GraphQLNamedType,
  selection: SelectionSetNode,
  byKey: Map<string, { field: FieldNode[]; type: GraphQLNamedType }>,
  seen: Set<string>,
): void {
  for (const s of selection.selections) {
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const entry = byKey.get(key);
      if (entry === undefined) byKey.set(key, { field: [s], type: parent });
      else entry.field.push(s);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      const on = s.typeCondition ? ctx.schema.getType(s.typeCondition.name.value) : parent;
      collect(ctx, on ?? parent, s.selectionSet, byKey, seen);
    } else {
      const name = s.name.value;
      const f = ctx.fragments.get(name);
      if (f === undefined || seen.has(name)) continue;
      seen.add(name);
      const on = ctx.schema.getType(f.typeCondition.name.value) ?? parent;
      collect(ctx, on, f.selectionSet, byKey, seen);
    }
  }
}

function costNode(
  ctx: TreeContext,
  parent: GraphQLNamedType,
  key: string,
  nodes: FieldNode[],
  page: PageSize | undefined,
): CostNode | undefined {
  const first = nodes[0]!;
  const name = first.name.value;
  if (name.startsWith('__')) return { key, points: 0, list: undefined, children: [] };
  const info = infoOf(ctx, parent, name);
  if (info === undefined) return undefined; // validation reports it
  const { named, isList } = info;
  const size = pageSize(first);
  const isConnection = size !== undefined && !isList && info.isObject;
  const isPage = page !== undefined && (name === 'edges' || name === 'nodes') && isList;
  const { model } = ctx;
  let points: number;
  const fieldOverride = info.fieldPoints;
  if (fieldOverride !== undefined) points = fieldOverride;
  else if (isConnection) points = model.connection;
  else if (isPage) points = name === 'nodes' ? (info.typePoints ?? model.item) : model.item;
  else if (info.isComposite) points = info.typePoints ?? model.object;
  else points = model.scalar;
  // The node inside an edge: the item is counted on the edge.
  if (
    page === undefined &&
    name === 'node' &&
    parent.name.endsWith('Edge') &&
    fieldOverride === undefined
  ) {
    points = info.typePoints ?? 0;
  }
  let children: CostNode[] = [];
  if (info.isComposite) {
    const merged: SelectionSetNode = {
      kind: Kind.SELECTION_SET,
      selections: nodes.flatMap((n) => n.selectionSet?.selections ?? []),
    };
    children = childrenOf(ctx, named, merged, isConnection ? size : undefined);
  }
  const list = isPage ? page : isList ? (size ?? ctx.defaultListSize) : undefined;
  if (isList && !isPage && info.isComposite && (list === 0 || chargesNothing(points, children))) {
    ctx.zeroLists?.add(`${parent.name}.${name}`);
  }
  const when = conditions(first);
  return when === undefined
    ? { key, points, list, children }
    : { key, points, list, children, when };
}

// costlyOnly is here, beside the tree it walks (cost.ts imports this file).
/**
 * The tree without the fields that can never cost a point (0 points and nothing costly
 * below, as the scalars of most models; or always skipped), so costing per request walks
 * only what counts.
 */
export function costlyOnly(nodes: readonly CostNode[]): CostNode[] {
  const out: CostNode[] = [];
  for (const n of nodes) {
    if (n.when?.some((c) => c.variable === '')) continue; // always left out
    const children = costlyOnly(n.children);
    if (n.points === 0 && children.length === 0) continue;
    out.push(children.length === n.children.length ? n : { ...n, children });
  }
  return out;
}

/** Whether a field of `points` with `children` costs nothing, whatever the variables. */
function chargesNothing(points: number, children: readonly CostNode[]): boolean {
  return points === 0 && costlyOnly(children).length === 0;
}

/** The facts of `parent.name`, cached; `undefined` for a field the type does not have. */
function infoOf(ctx: TreeContext, parent: GraphQLNamedType, name: string): FieldInfo | undefined {
  let byName = ctx.fieldInfo.get(parent);
  if (byName === undefined) {
    byName = new Map();
    ctx.fieldInfo.set(parent, byName);
  }
  let info = byName.get(name);
  if (info === undefined) {
    const field = fieldOf(parent, name);
    if (field === undefined) info = null;
    else {
      const named = getNamedType(field.type as GraphQLOutputType);
      const { overrides } = ctx;
      info = {
        named,
        isList: isListType(getNullableType(field.type)),
        isComposite: isCompositeType(named),
        isObject: isObjectType(named),
        fieldPoints:
          overrides.fields.get(`${parent.name}.${name}`) ?? directiveCost(field as never),
        typePoints: overrides.types.get(named.name) ?? directiveCost(named as never),
      };
    }
    byName.set(name, info);
  }
  return info ?? undefined;
}

function fieldOf(
  parent: GraphQLNamedType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  const fields = (parent as { getFields?: () => Record<string, GraphQLField<unknown, unknown>> })
    .getFields;
  return typeof fields === 'function' ? fields.call(parent)[name] : undefined;
}

/** The field's `first` / `last` argument (the larger when both). */
function pageSize(field: FieldNode): PageSize | undefined {
  let size: PageSize | undefined;
  for (const arg of field.arguments ?? []) {
    if (!PAGE_ARGS.includes(arg.name.value)) continue;
    const v = arg.value;
    if (v.kind === Kind.INT) {
      const n = Number(v.value);
      size = typeof size === 'number' ? Math.max(size, n) : n;
    } else if (v.kind === Kind.VARIABLE && size === undefined) {
      size = { variable: v.name.value, fallback: 1 };
    }
  }
  return size;
}

/** `@skip(if: $v)` / `@include(if: $v)` on variables; literal `true`/`false` decided now. */
function conditions(field: FieldNode): CostNode['when'] {
  const out: { variable: string; include: boolean }[] = [];
  for (const d of field.directives ?? []) {
    const name = d.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const v = d.arguments?.find((a) => a.name.value === 'if')?.value;
    if (v?.kind === Kind.VARIABLE)
      out.push({ variable: v.name.value, include: name === 'include' });
    else if (v?.kind === Kind.BOOLEAN && v.value === (name === 'skip')) {
      out.push({ variable: '', include: false }); // always left out
    }
  }
  return out.length === 0 ? undefined : out;
}
