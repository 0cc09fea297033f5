/** Attribute values, as `@opentelemetry/api`'s `Attributes`. */
export type MetricAttributes = Record<string, string>;

/** What sluice uses of an OpenTelemetry `Meter` (`@opentelemetry/api`); a real one fits. */
export interface MeterLike {
  /** Creates `sluice.store.duration` (OpenTelemetry `Meter.createHistogram`). */
  createHistogram(
    name: string,
    options?: { description?: string; unit?: string },
  ): { record(value: number, attributes?: MetricAttributes): void };
  /** Creates `sluice.leases` (OpenTelemetry `Meter.createUpDownCounter`). */
  createUpDownCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): { add(value: number, attributes?: MetricAttributes): void };
  /** Creates `sluice.requests` (OpenTelemetry `Meter.createObservableCounter`). */
  createObservableCounter(
    name: string,
    options?: { description?: string; unit?: string },
  ): {
    addCallback(
      callback: (result: { observe(value: number, attributes?: MetricAttributes): void }) => void,
    ): void;
  };
}

/** What sluice uses of an OpenTelemetry `MeterProvider`; the SDK's `MeterProvider` fits. */
export interface MeterProviderLike {
  /** The meter of an instrumentation scope: sluice asks for {@link METER_NAME}. */
  getMeter(name: string, version?: string): MeterLike;
}

/** `@opentelemetry/api`, as far as sluice uses it. */
export interface OtelApi {
  /** `@opentelemetry/api`'s `metrics`: the global meter provider's front. */
  metrics: {
    /** The meter of an instrumentation scope (`@sluice/core`, `@sluice/ai`) on the global provider. */
    getMeter(name: string): MeterLike;
  };
}
