// OpenTelemetry metrics (Fastify): the SDK set up first, then every limiter with metrics: true.
// npm install @opentelemetry/api @opentelemetry/sdk-metrics (and an exporter)
import { metrics } from '@opentelemetry/api';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { Limit, rateLimit } from '@sluice/fastify';
import Fastify from 'fastify';

// Register the provider BEFORE creating limiters: they look it up when they are made.
// For Grafana, use OTLPMetricExporter from @opentelemetry/exporter-metrics-otlp-http.
const provider = new MeterProvider({
  readers: [
    new PeriodicExportingMetricReader({
      exporter: new ConsoleMetricExporter(),
      exportIntervalMillis: 30_000,
    }),
  ],
});
metrics.setGlobalMeterProvider(provider);

const app = Fastify();
await app.register(rateLimit, {
  limit: Limit.perMinute(60).named('api'), // sluice.limit="api": name your limits
  metrics: true,
});
app.get('/items', async () => ({ items: [] }));

// Or hand a provider to one limiter (tests: an in-memory reader), without the global one.
await app.register(
  async (admin) => {
    await admin.register(rateLimit, {
      limit: Limit.perMinute(10).named('admin'),
      metrics: { meterProvider: provider },
    });
    admin.get('/stats', async () => ({ ok: true }));
  },
  { prefix: '/admin' },
);

await app.listen({ port: 3000 });
