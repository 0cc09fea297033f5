/**
 * Type test, checked by `tsc -p tsconfig.json --noEmit` at the repository root (not run by
 * jest): the client defines its own copies of two core types, since it does not depend on
 * `@sluice/core` (nothing of the server may reach a browser bundle). One concept, one
 * shape: a change to either copy fails the root `tsc` here.
 */
import type { SluiceConfigError as CoreConfigError, HeaderStyle } from '@sluice/core';
import type { Equal } from '@sluice/test-kit';
import type { SluiceConfigError as ClientConfigError, HeaderForm } from '../src/index.js';

/** The header style the client recognises is the core's `HeaderStyle`, the same four values. */
export const sameHeaderStyle: Equal<HeaderForm, HeaderStyle> = true;

/** The client's `SluiceConfigError` has the core's public shape (`option`, `value`, `message`). */
export const sameErrorShape: Equal<
  Pick<ClientConfigError, 'option' | 'value' | 'message' | 'name'>,
  Pick<CoreConfigError, 'option' | 'value' | 'message' | 'name'>
> = true;
