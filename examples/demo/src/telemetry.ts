/**
 * The demo's OpenTelemetry metrics, Grafana-ready: the SDK's `MeterProvider`, registered as
 * the global one (so every limiter with `metrics: true` records on it), exporting
 *
 * - over OTLP/HTTP (protobuf-free JSON) when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 *   `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`) is set, e.g. `http://127.0.0.1:4318` for a local
 *   OpenTelemetry Collector, Grafana Alloy or the `grafana/otel-lgtm` image; the exporter
 *   reads the endpoint, headers and timeout from the standard `OTEL_EXPORTER_OTLP_*`
 *   variables;
 * - to the console otherwise (one block per export).
 *
 * Every `OTEL_METRIC_EXPORT_INTERVAL` ms (default 10 000 for OTLP, 30 000 for the console).
 * The service is `OTEL_SERVICE_NAME`, default `sluice-demo`.
 */
import { metrics } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';

export interface Telemetry {
  /** Where the metrics go, for the banner. */
  description: string;
  /** Exports what is left, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts exporting metrics as described above and registers the provider globally. Call it
 * before the apps are created (limiters look the global provider up when they are made).
 *
 * @param env - the environment (default `process.env`).
 */
export function startTelemetry(env: NodeJS.ProcessEnv = process.env): Telemetry {
  const endpoint = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const exporter: PushMetricExporter = endpoint
    ? new OTLPMetricExporter()
    : new ConsoleMetricExporter();
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL) || (endpoint ? 10_000 : 30_000);
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'sluice-demo' }),
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: interval })],
  });
  metrics.setGlobalMeterProvider(provider);
  return {
    description: endpoint
      ? `OTLP/HTTP to ${endpoint.replace(/\/\/[^@/]*@/, '//***@')} every ${interval / 1000} s`
      : `the console every ${interval / 1000} s (set OTEL_EXPORTER_OTLP_ENDPOINT to export over OTLP)`,
    shutdown: async () => {
      await provider.shutdown();
      metrics.disable();
    },
  };
}
