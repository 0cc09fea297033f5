import type { StoreFailureLogger } from '@sluice/core/protocol';
import { type CostConfig, type OperationCost, UNDERCHARGE_RATIO } from './analyzer.js';

/** The most list fields warned about per limiter (then no more: the log stays readable). */
const MAX_WARNED_FIELDS = 100;

/**
 * The warnings of a GraphQL limiter whose cost model lets operations through uncharged,
 * each logged once per limiter (per process) with its fix: a list field the model counts 0
 * points for (its items are never charged, so never limited), and an operation whose
 * actual cost is more than {@link UNDERCHARGE_RATIO} times what it was charged up front
 * (the budget then only bites after the work was done).
 */
export class CostWarnings {
  readonly #logger: StoreFailureLogger;
  readonly #config: CostConfig;
  readonly #fields = new Set<string>();
  #undercharged = false;

  constructor(logger: StoreFailureLogger, config: CostConfig) {
    this.#logger = logger;
    this.#config = config;
  }

  /** Warns about each list field of `op` that costs nothing (once per field). */
  analysed(op: OperationCost): void {
    if (op.zeroLists.length === 0 || this.#fields.size >= MAX_WARNED_FIELDS) return;
    for (const field of op.zeroLists) {
      if (this.#fields.has(field)) continue;
      this.#fields.add(field);
      this.#logger.warn(
        `sluice: ${this.#config.modelName} charges 0 points for the list field ${field}, so ` +
          'its items are never counted and operations through it are never limited: give it ' +
          `a cost (fieldCosts: { '${field}': n }, typeCosts, or @cost on the field or its ` +
          "type), or use costModel 'objects' or 'shopify', which charge each object up front " +
          `(defaultListSize ${this.#config.defaultListSize} items for a list without first / last)`,
      );
    }
  }

  /** Warns (once) when `actual` is far above the `requested` points charged up front. */
  settled(requested: number, actual: number): void {
    if (this.#undercharged || actual <= UNDERCHARGE_RATIO * Math.max(requested, 1)) return;
    this.#undercharged = true;
    this.#logger.warn(
      `sluice: a GraphQL operation cost ${actual} points but was charged ${requested} up ` +
        `front (more than ${UNDERCHARGE_RATIO}x), so the budget only applied after the work ` +
        `was done: lists without first / last are assumed to hold defaultListSize ` +
        `(${this.#config.defaultListSize}) items; raise defaultListSize, give the lists ` +
        'first / last arguments, or give them a cost (fieldCosts, typeCosts, @cost)',
    );
  }
}
