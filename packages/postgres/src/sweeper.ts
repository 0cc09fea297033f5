import type { PostgresStoreConfig } from './options.js';
import { sweepSql } from './sql/decide.sql.js';
import type { SqlNames } from './sql/names.js';

/** Ms a row outlives its state's expiry before a sweep deletes it (clock skew margin). */
const SWEEP_SLACK_MS = 1000;

/**
 * Deletes expired rows in bounded passes (`sweepBatch` rows each, `SKIP LOCKED`), every
 * `sweepIntervalMs` (an unref'd timer: it never keeps a process alive). With `clock:
 * 'client'` the cutoff is the latest time a call carried, else the database's clock.
 */
export class Sweeper {
  readonly #config: PostgresStoreConfig;
  readonly #text: string;
  #timer: NodeJS.Timeout | undefined;
  #lastNow = 0;
  #running: Promise<number> | undefined;

  constructor(config: PostgresStoreConfig, names: SqlNames) {
    this.#config = config;
    this.#text = sweepSql(names);
    if (config.sweepIntervalMs > 0) {
      this.#timer = setInterval(() => {
        this.sweep(100).catch(() => {
          // A failed pass is retried at the next interval; decisions report failures.
        });
      }, config.sweepIntervalMs);
      this.#timer.unref();
    }
  }

  /** Records a call's time (the cutoff with `clock: 'client'`). */
  saw(nowMs: number): void {
    if (nowMs > this.#lastNow) this.#lastNow = nowMs;
  }

  sweep(maxPasses: number): Promise<number> {
    this.#running ??= this.#passes(maxPasses).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #passes(maxPasses: number): Promise<number> {
    const { sql, clock, sweepBatch } = this.#config;
    let total = 0;
    for (let pass = 0; pass < maxPasses; pass++) {
      const cutoff =
        clock === 'client'
          ? this.#lastNow - SWEEP_SLACK_MS
          : Number(
              await sql.value('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)', []),
            ) - SWEEP_SLACK_MS;
      const n = Number(await sql.value(this.#text, [cutoff, sweepBatch]));
      total += n;
      if (n < sweepBatch) break;
    }
    return total;
  }
}
