import type * as Luxon from 'luxon';
import { SluiceConfigError } from '../common/errors.js';
import { nodeRequire } from '../common/node-require.js';

/**
 * luxon, which calendar quotas compute their edges with, loaded only when a calendar quota
 * is built (`Limit.perCalendarDay` / `Week` / `Month`): an application without one never
 * loads it, and a bundle of it (a Worker) does not contain it. It is an optional peer
 * dependency of @sluice/core (4.6 MB installed, for calendar quotas alone): an application
 * with a calendar quota installs it (`npm install luxon`). On Node, Bun and Deno it is
 * required from where @sluice/core or the application is installed; a runtime without
 * Node's module loader (Workers without `nodejs_compat`, Vercel's edge runtime) is given it
 * once with {@link provideLuxon}.
 */
export type LuxonModule = Pick<typeof Luxon, 'DateTime' | 'IANAZone'>;

let luxon: LuxonModule | undefined;

const isLuxon = (module: unknown): boolean =>
  typeof (module as Partial<LuxonModule> | undefined)?.DateTime?.fromMillis === 'function' &&
  typeof (module as Partial<LuxonModule>).IANAZone?.isValidZone === 'function';

/**
 * Gives sluice the luxon module, for calendar quotas on a runtime without Node's module
 * loader (Workers without `nodejs_compat`, Vercel's edge runtime); elsewhere sluice loads it
 * itself when the first calendar quota is built.
 *
 * @param module - `import * as luxon from 'luxon'` (luxon 3).
 * @throws `SluiceConfigError` naming `luxon` when `module` is not luxon.
 * @example
 * import * as luxon from 'luxon';
 * provideLuxon(luxon);
 * const monthly = Limit.perCalendarMonth(10_000, { timeZone: 'Europe/Paris' });
 */
export function provideLuxon(module: unknown): void {
  if (!isLuxon(module)) {
    throw new SluiceConfigError(
      'luxon',
      module,
      "the luxon module (import * as luxon from 'luxon')",
    );
  }
  luxon = module as LuxonModule;
}

/**
 * luxon, loaded on first use.
 * @throws `SluiceConfigError` naming `luxon` (and `npm install luxon`) when it is not
 *   installed or this runtime cannot load it, and {@link provideLuxon} was not called.
 */
export function loadLuxon(): LuxonModule {
  if (luxon !== undefined) return luxon;
  luxon = nodeRequire<LuxonModule>('luxon', isLuxon);
  if (luxon !== undefined) return luxon;
  throw new SluiceConfigError('luxon', undefined, 'luxon', {
    message:
      "sluice: calendar quotas compute their edges with luxon, an optional peer dependency of @sluice/core that is not installed or that this runtime cannot load by itself: install it (npm install luxon); on a runtime without Node's module loader (Workers without nodejs_compat) also call provideLuxon(luxon) once (import * as luxon from 'luxon') before building one",
  });
}
