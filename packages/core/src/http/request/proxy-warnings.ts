import { SluiceConfigError } from '../../common/errors.js';
import { checkOptionNames } from '../../common/known-options.js';
import type { RequestView } from '../../limits/request-view.js';
import type { StoreFailureLogger } from '../../store-failure/store-failure.js';

/**
 * What the framework trusts of the proxies in front of it, as its adapter reads it from the
 * framework's setting (Express `trust proxy`, Fastify `trustProxy`, Koa `app.proxy` and
 * `app.maxIpsCount`):
 * - `'none'`: the client IP is the socket's address; `X-Forwarded-For` is ignored;
 * - `'all'`: every hop is trusted, so the client IP is the leftmost `X-Forwarded-For`
 *   entry, which the client writes itself;
 * - `'some'`: a hop count, addresses or a function decide.
 */
export type ProxyTrust = 'none' | 'all' | 'some';

/**
 * The `validate` option: the checks a limiter runs on its first requests, each of which
 * warns once per application (express-rate-limit's `validate`). `false` turns them all off.
 */
export interface ValidateOptions {
  /**
   * Warn when the framework trusts every proxy hop (Express `trust proxy: true`, Fastify
   * `trustProxy: true`, Koa `app.proxy` with `maxIpsCount` 0): a client then picks its IP
   * by sending `X-Forwarded-For`, and rotating it is never limited.
   * @default true
   */
  trustProxy?: boolean;
  /**
   * Warn when a request carries `X-Forwarded-For` and the framework trusts no proxy: every
   * client behind the proxy is keyed by the proxy's address, one bucket for all.
   * @default true
   */
  xForwardedFor?: boolean;
}

/** {@link ValidateOptions}, parsed. */
export interface ValidateConfig {
  trustProxy: boolean;
  xForwardedFor: boolean;
  logger: StoreFailureLogger;
}

/**
 * Parses the `validate` option.
 * @throws {@link SluiceConfigError} naming `validate` (or an unknown name in it).
 */
export function parseValidate(
  option: boolean | ValidateOptions | undefined,
  logger: StoreFailureLogger,
): ValidateConfig {
  if (option === undefined || typeof option === 'boolean') {
    const on = option !== false;
    return { trustProxy: on, xForwardedFor: on, logger };
  }
  if (option === null || typeof option !== 'object') {
    throw new SluiceConfigError(
      'validate',
      option,
      'a boolean or an object { trustProxy?: boolean, xForwardedFor?: boolean }',
    );
  }
  checkOptionNames(option, ['trustProxy', 'xForwardedFor'], 'the validate option');
  const flag = (name: keyof ValidateOptions): boolean => {
    const value = option[name];
    if (value !== undefined && typeof value !== 'boolean')
      throw new SluiceConfigError(`validate.${name}`, value, 'a boolean');
    return value !== false;
  };
  return { trustProxy: flag('trustProxy'), xForwardedFor: flag('xForwardedFor'), logger };
}

/**
 * How the warnings name the framework's proxy setting and a fix, in the framework's own
 * words: each adapter's binding gives its own (`HttpBinding.proxySetting`).
 * @example { name: "Express's trust proxy setting", fix: "app.set('trust proxy', 1)" }
 */
export interface ProxySetting {
  /** The setting, as its framework's docs name it. */
  readonly name: string;
  /** What trusting only your own proxies looks like there. */
  readonly fix: string;
}

const ANY_FRAMEWORK: ProxySetting = {
  name: "the framework's proxy setting",
  fix: "your proxies' hop count or addresses",
};

const permissive = (s: ProxySetting) =>
  `sluice: ${s.name} trusts every proxy hop, so the client IP is what the client writes in ` +
  `X-Forwarded-For: a client rotating it is never limited. Trust only your proxies (${s.fix}), ` +
  'or turn this check off with validate: { trustProxy: false }. (SLUICE_PERMISSIVE_TRUST_PROXY)';

const unexpectedXff = (s: ProxySetting) =>
  `sluice: a request came with an X-Forwarded-For header but ${s.name} trusts no proxy, so ` +
  "every client behind the proxy is keyed by the proxy's address: one bucket for all of them. " +
  `Trust your proxies (${s.fix}), or turn this check off with validate: { xForwardedFor: ` +
  'false }. (SLUICE_UNEXPECTED_X_FORWARDED_FOR)';

/** How many requests of a limiter are checked: the checks stop costing anything after that. */
const CHECKED_REQUESTS = 1000;

/** The warnings given, per application (or `NO_APP`): each at most once per application. */
const given = new WeakMap<object, Set<string>>();
const NO_APP = {};

/**
 * The proxy checks of one limiter (see {@link ValidateOptions}): run on its first
 * {@link CHECKED_REQUESTS} requests, each warning given once per application through the
 * `logger` option (default `console`). The logic is the core's; the adapter only reports
 * the framework's setting ({@link ProxyTrust}) and the request headers.
 */
export class ProxyWarnings {
  /** Requests left to check; 0: done. */
  remaining = CHECKED_REQUESTS;
  readonly #config: ValidateConfig;
  readonly #setting: ProxySetting;

  /** @param setting - the framework's words for its proxy setting (default: generic ones). */
  constructor(config: ValidateConfig, setting: ProxySetting = ANY_FRAMEWORK) {
    this.#config = config;
    this.#setting = setting;
    if (!config.trustProxy && !config.xForwardedFor) this.remaining = 0;
  }

  /**
   * Checks one request.
   * @param trust - the framework's setting, `undefined` when the adapter cannot tell.
   * @param headers - the request headers (lower-case names).
   * @param app - the application serving it: each warning is given once per application.
   */
  check(
    trust: ProxyTrust | undefined,
    headers: () => RequestView['headers'],
    app: object | undefined,
  ): void {
    this.remaining--;
    const c = this.#config;
    if (trust === 'all' && c.trustProxy) this.#warn(app, permissive(this.#setting));
    else if (trust === 'none' && c.xForwardedFor && headers()['x-forwarded-for'] !== undefined)
      this.#warn(app, unexpectedXff(this.#setting));
  }

  #warn(app: object | undefined, message: string): void {
    const key = app ?? NO_APP;
    let warned = given.get(key);
    if (warned === undefined) {
      warned = new Set();
      given.set(key, warned);
    }
    if (warned.has(message)) return;
    warned.add(message);
    this.#config.logger.warn(message);
  }
}
