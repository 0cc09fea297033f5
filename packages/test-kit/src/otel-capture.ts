import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';

/** What {@link otelCapture} read from the SDK after a run. */
export interface CapturedMetrics {
  /** `sluice.requests` by `<sluice.limit>|<sluice.result>`. */
  requests: Record<string, number>;
  /** How many values `sluice.store.duration` recorded, and their sum (s). */
  storeDurations: { count: number; sum: number; unit: string | undefined };
  /** `sluice.leases` by `sluice.limit`. */
  leases: Record<string, number>;
  /** `sluice.denials.top` by `sluice.rank` (`'1'`..`'10'`): the gauge's last values. */
  top: Record<string, number>;
  /** Every attribute of every data point, as `name=value`. */
  attributes: string[];
  /** The instruments seen: `name` → `unit`. */
  units: Record<string, string>;
  /**
   * Every counter's value (a monotonic or up-down sum) by `name{k=v,…}`, the attributes
   * sorted by name: `sluice.ai.tokens{gen_ai.token.type=input,sluice.ai.phase=settled}`.
   */
  sums: Record<string, number>;
}

/**
 * An OpenTelemetry SDK `MeterProvider` whose metrics go to the SDK's in-memory exporter
 * (`InMemoryMetricExporter`, cumulative), for tests: pass `meterProvider` as the `metrics`
 * option (`{ meterProvider }`) or register it globally, run traffic, then `read()`.
 */
export function otelCapture(): {
  meterProvider: MeterProvider;
  read(): Promise<CapturedMetrics>;
  shutdown(): Promise<void>;
} {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    meterProvider,
    async read() {
      exporter.reset();
      await reader.forceFlush();
      const out: CapturedMetrics = {
        requests: {},
        storeDurations: { count: 0, sum: 0, unit: undefined },
        leases: {},
        top: {},
        attributes: [],
        units: {},
        sums: {},
      };
      const batches = exporter.getMetrics();
      const last = batches[batches.length - 1];
      for (const scope of last?.scopeMetrics ?? []) {
        for (const metric of scope.metrics) {
          const { name, unit } = metric.descriptor;
          out.units[name] = unit;
          for (const point of metric.dataPoints) {
            const a = point.attributes;
            for (const [k, v] of Object.entries(a)) out.attributes.push(`${k}=${String(v)}`);
            if (metric.dataPointType === DataPointType.SUM) {
              const labels = Object.entries(a)
                .map(([k, v]) => `${k}=${String(v)}`)
                .sort()
                .join(',');
              const series = `${name}{${labels}}`;
              out.sums[series] = (out.sums[series] ?? 0) + (point.value as number);
            }
            if (name === 'sluice.requests' && metric.dataPointType === DataPointType.SUM) {
              const key = `${a['sluice.limit']}|${a['sluice.result']}`;
              out.requests[key] = (out.requests[key] ?? 0) + (point.value as number);
            } else if (name === 'sluice.denials.top') {
              out.top[String(a['sluice.rank'])] = point.value as number;
            } else if (name === 'sluice.leases') {
              const key = String(a['sluice.limit']);
              out.leases[key] = (out.leases[key] ?? 0) + (point.value as number);
            } else if (name === 'sluice.store.duration') {
              const h = point.value as { count: number; sum?: number };
              out.storeDurations.count += h.count;
              out.storeDurations.sum += h.sum ?? 0;
              out.storeDurations.unit = unit;
            }
          }
        }
      }
      return out;
    },
    shutdown: () => meterProvider.shutdown(),
  };
}
