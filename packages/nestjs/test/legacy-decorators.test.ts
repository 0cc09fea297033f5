import { isThrottleSkipped } from '@sluice/core/http';
import * as express from '@sluice/express';
import * as fastify from '@sluice/fastify';
import * as koa from '@sluice/koa';

// This project compiles with `experimentalDecorators` (Nest's setting): the adapters'
// @Throttle / @SkipThrottle on classes and methods, written as decorators in that form,
// type-check and apply to every method (the other projects compile the TC39 form).
describe.each([
  ['express', express],
  ['fastify', fastify],
  ['koa', koa],
] as const)('legacy decorators of @sluice/%s', (_name, adapter) => {
  it('@SkipThrottle() on a class marks every method, and bound copies of them', () => {
    @adapter.SkipThrottle()
    class Probes {
      live() {
        return 'live';
      }
      ready() {
        return 'ready';
      }
    }
    const p = new Probes();
    expect([isThrottleSkipped(p.live), isThrottleSkipped(p.ready.bind(p))]).toEqual([true, true]);
    expect(p.live()).toBe('live');
  });

  it('@Throttle() on a class wraps every method; @SkipThrottle() on a method keeps its mark', () => {
    @adapter.Throttle('5/min')
    class Reports {
      daily() {
        return 'daily';
      }
      @adapter.SkipThrottle()
      weekly() {
        return 'weekly';
      }
    }
    const proto = Reports.prototype as unknown as Record<string, { name: string }>;
    // Wrapped: the methods are no longer the ones the class body defined.
    expect(Object.getOwnPropertyNames(Reports.prototype).sort()).toEqual([
      'constructor',
      'daily',
      'weekly',
    ]);
    expect([isThrottleSkipped(proto.daily), isThrottleSkipped(proto.weekly)]).toEqual([
      false,
      true,
    ]);
  });
});
