/**
 * Type test, checked by `tsc -p tsconfig.json --noEmit` at the repository root (not run by
 * jest): the client's `HeaderStyle` and `SluiceConfigError` are the core's own (re-exported
 * from `@sluice/core/shared`), not copies; a copy made again fails the root `tsc` here.
 */
import type { SluiceConfigError as CoreConfigError } from '@sluice/core';
import type { HeaderStyle as CoreStyle } from '@sluice/core/shared';
import type { Equal } from '@sluice/test-kit';
import type { SluiceConfigError as ClientConfigError, HeaderStyle } from '../src/index.js';

/** The header styles the client reads are the core's `HeaderStyle`, the same four values. */
export const sameHeaderStyle: Equal<HeaderStyle, CoreStyle> = true;

/** The client's `SluiceConfigError` is the core's class (its constructor, statics included). */
export const sameErrorClass: Equal<typeof ClientConfigError, typeof CoreConfigError> = true;
