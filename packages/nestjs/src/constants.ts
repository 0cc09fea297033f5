/** Injection token of the parsed module options (`SluiceConfig`). */
export const SLUICE_CONFIG: unique symbol = Symbol('sluice:config');

/** Metadata key of the `@Throttle(...)` entries on a controller or handler. */
export const THROTTLE_METADATA = 'sluice:throttle';

/** Metadata key of `@SkipThrottle()` on a controller or handler. */
export const SKIP_THROTTLE_METADATA = 'sluice:skipThrottle';
