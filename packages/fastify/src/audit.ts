import { SluiceConfigError } from '@sluice/core';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { rootOf } from './binding.js';

/** Routes that asked for `config.rateLimit`, seen from the root, and those a registration took. */
export interface Audit {
  asked: RouteOptions[];
  taken: WeakSet<RouteOptions>;
}

const kAudit = Symbol('sluice.fastify.audit');
type Audited = FastifyInstance & { [kAudit]?: Audit };

/**
 * The root's audit (made by the first registration): every route registered after it that
 * asks for `config.rateLimit` must be taken by a registration, or `ready()` fails: no route
 * is silently unlimited.
 */
export function auditOf(app: FastifyInstance): Audit {
  const root = rootOf(app) as Audited;
  let audit = root[kAudit];
  if (audit === undefined) {
    const made: Audit = { asked: [], taken: new WeakSet() };
    audit = made;
    root[kAudit] = made;
    root.addHook('onRoute', (route) => {
      const config = route.config?.rateLimit;
      if (config !== undefined && config !== false) made.asked.push(route);
    });
    root.addHook('onReady', (done) => {
      const missed = made.asked.filter((r) => !made.taken.has(r));
      if (missed.length === 0) return done();
      const routes = missed.map((r) => `${String(r.method)} ${r.url}`);
      done(
        new SluiceConfigError(
          'config.rateLimit',
          routes.join(', '),
          'a route registered after `await app.register(rateLimit)` in the same context or a ' +
            'child context (no @sluice/fastify registration can see these routes, so they would ' +
            'be unlimited)',
        ),
      );
    });
  }
  return audit;
}
