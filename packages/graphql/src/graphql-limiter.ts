import { type Decision, type RequestView, SluiceConfigError } from '@sluice/core';
import {
  type HeaderStyle,
  ProtocolLimiter,
  ProtocolVerdict,
  parseHeaderStyles,
  protocolStoreOptions,
  protocolView,
} from '@sluice/core/protocol';
import { checkOptionNames } from '@sluice/core/store';
import { type DocumentNode, GraphQLError, type GraphQLSchema } from 'graphql';
import { CostAnalyzer, type OperationCost, parseCostOptions } from './cost/analyzer.js';
import { CostWarnings } from './cost/warnings.js';
import { fnOption, OPTION_NAMES, type SluiceGraphqlOptions } from './options.js';

/** `extensions.cost` of an answer: Shopify's shape, in docs/guide/graphql.md's names. */
export interface CostExtension {
  /** The points reserved before execution. */
  requested: number;
  /** The points the result really cost (what stays charged); 0 for a limited query. */
  actual: number;
  /** The budget's state (Shopify's `throttleStatus`). */
  throttleStatus: {
    /** The budget: the most restrictive limit's quota in points. */
    maximumAvailable: number;
    /** Points left now (after the difference was given back). */
    currentlyAvailable: number;
    /** Points restored per **second**. */
    restoreRate: number;
  };
}

/** What {@link GraphqlLimiter.begin} answers. */
export type Begin =
  | { allowed: true; op: OperationCost; requested: number; verdict: ProtocolVerdict }
  | { allowed: false; error: GraphQLError; headers: [string, string][] }
  | undefined; // not an operation the limiter can cost (validation will report it)

/** What {@link GraphqlLimiter.finish} answers. */
export interface Finish {
  cost: CostExtension | undefined;
  headers: [string, string][];
}

type AnyContext = {
  user?: { id?: unknown };
  req?: { socket?: { remoteAddress?: string }; headers?: RequestView['headers'] };
  request?: { ip?: string };
};

const defaultUser = (c: AnyContext) => c?.user?.id as string | number | undefined;
const defaultIp = (c: AnyContext) => c?.req?.socket?.remoteAddress ?? c?.request?.ip;

/**
 * The logic `useSluice` and `sluiceApollo` share: cost the operation, reserve the requested
 * points, and settle to the actual cost once the result is known. Adapters only translate.
 */
export class GraphqlLimiter<Context = unknown> {
  readonly #limiter: ProtocolLimiter;
  readonly #analyzer: CostAnalyzer;
  readonly #warnings: CostWarnings;
  readonly #key: (c: Context) => string | undefined | PromiseLike<string | undefined>;
  readonly #user: (c: Context) => string | number | undefined;
  readonly #ip: (c: Context) => string | undefined;
  readonly #styles: readonly HeaderStyle[];
  readonly #clock: () => number;
  readonly extensions: boolean;
  readonly statusCode: number;
  /** Whether answers carry rate-limit headers (the `headers` option). */
  readonly headers: boolean;

  constructor(options: SluiceGraphqlOptions<Context>, where: string) {
    if (options === null || typeof options !== 'object') {
      throw new SluiceConfigError('options', options, 'an object { limit, key?, store?, … }');
    }
    checkOptionNames(options, OPTION_NAMES, where);
    const cost = parseCostOptions(options);
    this.#analyzer = new CostAnalyzer(cost);
    this.#warnings = new CostWarnings(options.logger ?? console, cost);
    this.#limiter = new ProtocolLimiter({
      ...protocolStoreOptions(options),
      limit: options.limit,
      channel: 'graphql',
    });
    this.#key = fnOption('key', options.key, () => undefined);
    this.#user = fnOption('user', options.user, defaultUser as never);
    this.#ip = fnOption('ip', options.ip, defaultIp as never);
    this.#styles = parseHeaderStyles(options.headers ?? false);
    this.headers = this.#styles.length > 0;
    this.#clock = options.clock ?? Date.now;
    const ext = options.extensions ?? true;
    if (typeof ext !== 'boolean') throw new SluiceConfigError('extensions', ext, 'a boolean');
    this.extensions = ext;
    const status = options.statusCode ?? 429;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new SluiceConfigError('statusCode', status, 'an HTTP status 200-599');
    }
    this.statusCode = status;
  }

  /**
   * Costs the operation and reserves its requested points (synchronously when the `key`
   * function and the store are: no promise per operation on a MemoryStore). A denial is a `GraphQLError`
   * (`extensions.code` `'RATE_LIMITED'`, `retryAfter` in seconds, `cost`, and `http` with the
   * status and `Retry-After` for servers that read it); nothing is charged.
   */
  begin(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Readonly<Record<string, unknown>> | null | undefined,
    context: Context,
  ): Begin | Promise<Begin> {
    const op = this.#analyzer.operation(schema, document, operationName);
    if (op === undefined) return undefined;
    this.#warnings.analysed(op);
    const requested = op.requested(variables);
    const key = this.#key(context);
    // perf: synchronous all the way when the key function and the store are
    if (isThenable(key))
      return Promise.resolve(key).then((k) => this.#reserve(op, requested, k, context));
    return this.#reserve(op, requested, key, context);
  }

  #reserve(
    op: OperationCost,
    requested: number,
    key: string | undefined,
    context: Context,
  ): Begin | Promise<Begin> {
    const view = this.#view(context);
    if (key === undefined && view.userId === undefined && view.ip === '') {
      throw new GraphQLError(
        'sluice: no subject to limit this operation by: give the `key` option, or a context with `user.id` or `req`',
        { extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      );
    }
    const verdict = this.#limiter.check(view, { cost: requested, key });
    return verdict instanceof Promise
      ? verdict.then((v) => this.#begun(op, requested, v))
      : this.#begun(op, requested, verdict);
  }

  #begun(op: OperationCost, requested: number, verdict: ProtocolVerdict): Begin {
    if (verdict.allowed) return { allowed: true, op, requested, verdict };
    const headers = verdict.headers(this.#styles, this.#clock(), 'points');
    const never = verdict.retryAfterMs < 0;
    const retryAfter = verdict.retryAfterSeconds;
    const message = never
      ? `This query costs ${requested} points, more than the budget of ${verdict.decision.limit}`
      : `Rate limit exceeded: this query costs ${requested} points, retry in ${retryAfter} seconds`;
    const error = new GraphQLError(message, {
      extensions: {
        code: never ? 'QUERY_TOO_COSTLY' : 'RATE_LIMITED',
        ...(never ? {} : { retryAfter }),
        cost: this.extensions
          ? this.#costOf(verdict, requested, 0, verdict.decision.remaining)
          : undefined,
        http: { status: this.statusCode, headers: Object.fromEntries(headers) },
      },
    });
    return { allowed: false, error, headers };
  }

  /**
   * Settles an admitted operation to the actual cost of its `data` (the difference given
   * back exactly; an excess charged past the budget) and answers `extensions.cost` and the
   * headers. For incremental delivery, `data` is everything delivered (merged).
   */
  finish(begin: Begin & { allowed: true }, data: unknown): Finish | Promise<Finish> {
    const { op, verdict } = begin;
    const actual = Math.min(op.actual(data), Number.MAX_SAFE_INTEGER);
    this.#warnings.settled(begin.requested, actual);
    const peeks = this.#limiter.settle(verdict, actual);
    return peeks instanceof Promise
      ? peeks.then((p) => this.#finished(begin, actual, p))
      : this.#finished(begin, actual, peeks);
  }

  /**
   * The headers of an admitted operation before it is settled (the state after reserving):
   * what a streamed answer (`@defer` / `@stream`) carries, its headers leaving before its end.
   */
  reservedHeaders(begin: Begin & { allowed: true }): [string, string][] {
    return this.#styles.length === 0
      ? []
      : begin.verdict.headers(this.#styles, this.#clock(), 'points');
  }

  #finished(begin: Begin & { allowed: true }, actual: number, peeks: readonly Decision[]): Finish {
    const { requested, verdict } = begin;
    let remaining = peeks.length > 0 ? Number.POSITIVE_INFINITY : verdict.decision.remaining;
    for (const p of peeks) remaining = Math.min(remaining, p.remaining);
    if (this.#styles.length === 0) {
      return {
        cost: this.extensions ? this.#costOf(verdict, requested, actual, remaining) : undefined,
        headers: [],
      };
    }
    // The headers tell the state after settling: each limit's peek.
    const after =
      peeks.length === verdict.limits.length ? new ProtocolVerdict(peeks, verdict.limits) : verdict;
    return {
      cost: this.extensions ? this.#costOf(verdict, requested, actual, remaining) : undefined,
      headers: after.headers(this.#styles, this.#clock(), 'points'),
    };
  }

  #costOf(
    verdict: ProtocolVerdict,
    requested: number,
    actual: number,
    remaining: number,
  ): CostExtension {
    const d = verdict.decision;
    const i = verdict.decisions.indexOf(d);
    const periodMs = verdict.limits[i]?.periodMs ?? 0;
    return {
      requested,
      actual,
      throttleStatus: {
        maximumAvailable: d.limit,
        currentlyAvailable: remaining,
        restoreRate: periodMs > 0 ? Math.round((d.limit / (periodMs / 1000)) * 1e6) / 1e6 : 0,
      },
    };
  }

  #view(context: Context): RequestView {
    return protocolView({
      method: 'POST',
      route: 'graphql',
      ip: this.#ip(context),
      user: this.#user(context),
      headers: (context as AnyContext)?.req?.headers,
      raw: context,
    });
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
