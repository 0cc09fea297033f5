import { type MetricsOption, SluiceConfigError } from '@sluice/core';
import type { MeterLike, MeterProviderLike, MetricAttributes } from '@sluice/core/protocol';
import { loadOpenTelemetryApi } from '@sluice/core/store';

/**
 * OpenTelemetry metrics of a `tokenLimiter` (option `metrics`, as every sluice limiter's:
 * `true` for `@opentelemetry/api`'s global meter provider, `{ meterProvider }` for one of
 * yours), on the meter `@sluice/ai`. Counted in process and reported when the reader
 * collects (observable counters), as `@sluice/core`'s `sluice.requests`:
 *
 * | instrument | unit | attributes |
 * | --- | --- | --- |
 * | `sluice.ai.charges` | `{call}` | `sluice.result` (`allowed`, `limited`), `gen_ai.request.model` |
 * | `sluice.ai.tokens` | `{token}` | `gen_ai.token.type` (`input`, `output`), `sluice.ai.phase` (`upfront`: charged before the call; `settled`: the usage reported after it), `gen_ai.request.model` |
 *
 * The model is the request's `model` (`(none)` without one; past 100 models, `(other)`);
 * the key (team, API key, user) is never an attribute.
 */
export const AI_METER_NAME = '@sluice/ai';

/** Models counted apart; beyond, new ones are counted under `'(other)'`. */
const MAX_MODELS = 100;

/** One model's counts: calls allowed, limited; tokens upfront in/out, settled in/out. */
type Counts = Float64Array;
const ALLOWED = 0;
const LIMITED = 1;
const UPFRONT = 2;
const SETTLED = 4;

/** What a charge records: its counts row (the model's). */
export interface AiMetrics {
  /** A decided charge: allowed with its upfront input and output tokens, or limited. */
  charged(model: string | undefined, allowed: boolean, input: number, output: number): void;
  /** A settled charge: the usage's input and output tokens. */
  settled(model: string | undefined, input: number, output: number): void;
}

const byMeter = new WeakMap<MeterLike, AiMetrics>();
let warnedMissing = false;

/**
 * The {@link AiMetrics} of the `metrics` option, or `undefined` when nothing is recorded.
 * @throws {@link SluiceConfigError} naming `metrics` or `metrics.meterProvider`.
 */
export function aiMetrics(
  option: MetricsOption | undefined,
  logger: { warn(message: string): void },
): AiMetrics | undefined {
  const meter = meterOf(option, logger);
  if (meter === undefined) return undefined;
  let m = byMeter.get(meter);
  if (m === undefined) {
    m = instruments(meter);
    byMeter.set(meter, m);
  }
  return m;
}

function meterOf(option: unknown, logger: { warn(message: string): void }): MeterLike | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) {
    const meter = loadOpenTelemetryApi()?.metrics.getMeter(AI_METER_NAME);
    if (meter === undefined && !warnedMissing) {
      warnedMissing = true;
      logger.warn(
        'sluice: metrics: true but @opentelemetry/api is not installed; nothing is recorded',
      );
    }
    return meter;
  }
  const provider = (option as { meterProvider?: MeterProviderLike } | null)?.meterProvider;
  if (typeof option !== 'object' || typeof provider?.getMeter !== 'function') {
    throw new SluiceConfigError(
      typeof option === 'object' && option !== null ? 'metrics.meterProvider' : 'metrics',
      option,
      'true, false or { meterProvider } (an OpenTelemetry MeterProvider)',
    );
  }
  return provider.getMeter(AI_METER_NAME);
}

function instruments(meter: MeterLike): AiMetrics {
  const models = new Map<string, Counts>();
  const row = (model: string | undefined): Counts => {
    const name = model ?? '(none)';
    let counts = models.get(name);
    if (counts === undefined) {
      const series = models.size < MAX_MODELS ? name : '(other)';
      counts = models.get(series);
      if (counts === undefined) {
        counts = new Float64Array(6);
        models.set(series, counts);
      }
    }
    return counts;
  };
  const observe =
    (
      each: (
        counts: Counts,
        model: string,
        observe: (value: number, a: MetricAttributes) => void,
      ) => void,
    ) =>
    (result: { observe(value: number, attributes?: MetricAttributes): void }) => {
      const put = (value: number, a: MetricAttributes) => {
        if (value > 0) result.observe(value, a);
      };
      for (const [model, counts] of models) each(counts, model, put);
    };
  meter
    .createObservableCounter('sluice.ai.charges', {
      description: 'LLM calls charged by a token limiter, by result and model',
      unit: '{call}',
    })
    .addCallback(
      observe((c, model, put) => {
        put(c[ALLOWED]!, { 'sluice.result': 'allowed', 'gen_ai.request.model': model });
        put(c[LIMITED]!, { 'sluice.result': 'limited', 'gen_ai.request.model': model });
      }),
    );
  meter
    .createObservableCounter('sluice.ai.tokens', {
      description: 'Tokens charged up front and settled to the reported usage, by type and model',
      unit: '{token}',
    })
    .addCallback(
      observe((c, model, put) => {
        for (const [phase, at] of [
          ['upfront', UPFRONT],
          ['settled', SETTLED],
        ] as const) {
          for (const [type, offset] of [
            ['input', 0],
            ['output', 1],
          ] as const) {
            put(c[at + offset]!, {
              'gen_ai.token.type': type,
              'sluice.ai.phase': phase,
              'gen_ai.request.model': model,
            });
          }
        }
      }),
    );
  return {
    charged(model, allowed, input, output) {
      const c = row(model);
      if (!allowed) {
        c[LIMITED]!++;
        return;
      }
      c[ALLOWED]!++;
      c[UPFRONT]! += input;
      c[UPFRONT + 1]! += output;
    },
    settled(model, input, output) {
      const c = row(model);
      c[SETTLED]! += input;
      c[SETTLED + 1]! += output;
    },
  };
}
