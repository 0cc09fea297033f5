import type { Decision } from '@sluice/core';
import type { Request } from 'express';

/**
 * `req.rateLimit` without a new hidden class per request.
 *
 * Express 5 swaps each request's prototype (`Object.setPrototypeOf(req, app.request)`), and
 * V8 then gives every request a hidden class of its own. Adding a property to such an
 * object builds yet another hidden class (a Map and its descriptors, in the old
 * generation): measured at several µs of CPU and garbage collection per request, more than
 * the whole limiter. So `rateLimit` is an accessor, defined once on Express's request
 * prototype (`express.request`, the prototype of every `app.request`, so each app and
 * sub-app of that Express copy sees it), and the value lives in `res.locals` (a
 * dictionary-mode object Express creates per request) under a symbol. Reading and assigning
 * `req.rateLimit` behave as for an own property; only `Object.hasOwn(req, 'rateLimit')`
 * tells the difference.
 *
 * Outside Express's request prototypes (a bare `http.IncomingMessage`, or a prototype where
 * someone else already defined `rateLimit`), it is a plain property write.
 */
const kDecision = Symbol('sluice.rateLimit');
type Locals = { [kDecision]?: unknown };

function localsOf(req: Request): Locals | undefined {
  const locals = (req.res as { locals?: unknown } | undefined)?.locals;
  return typeof locals === 'object' && locals !== null ? (locals as Locals) : undefined;
}

const accessor: PropertyDescriptor = {
  configurable: true,
  enumerable: false,
  get(this: Request) {
    return localsOf(this)?.[kDecision];
  },
  set(this: Request, value: unknown) {
    const locals = localsOf(this);
    if (locals !== undefined) locals[kDecision] = value;
    else {
      Object.defineProperty(this, 'rateLimit', {
        configurable: true,
        enumerable: true,
        writable: true,
        value,
      });
    }
  },
};

/** The `app.request` prototypes (apps and sub-apps) whose parent prototype has the accessor. */
const installed = new WeakSet<object>();

/** Defines the accessor on `req`'s Express request prototype; false where it cannot. */
function installAccessor(req: Request): boolean {
  const appRequest = Object.getPrototypeOf(req) as object | null;
  if (appRequest !== null && installed.has(appRequest)) return true;
  // Express 5: app.request = Object.create(express.request, { app: … }).
  if (appRequest === null || !Object.hasOwn(appRequest, 'app')) return false;
  const expressRequest = Object.getPrototypeOf(appRequest) as object | null;
  if (expressRequest === null || Object.hasOwn(req, 'rateLimit')) return false;
  const existing = Object.getOwnPropertyDescriptor(expressRequest, 'rateLimit');
  if (existing === undefined) Object.defineProperty(expressRequest, 'rateLimit', accessor);
  else if (existing.get !== accessor.get) return false;
  installed.add(appRequest);
  return true;
}

/** `req.rateLimit = decision` (see above); `locals` is `res.locals` of `req`'s response. */
export function setRequestDecision(req: Request, locals: unknown, decision: Decision): void {
  if (typeof locals === 'object' && locals !== null && installAccessor(req))
    (locals as Locals)[kDecision] = decision;
  else req.rateLimit = decision;
}
