import { HttpLimiter } from '../../src/http/index.js';
import { SluiceConfigError } from '../../src/index.js';

const build = (options: Record<string, unknown>) => () =>
  new HttpLimiter({ limit: 'throttle:10,1', ...options });

describe("mode 'queue' options (checked at construction)", () => {
  it('defaults: maxWait 5 s, maxQueued 1000', () => {
    expect(build({ mode: 'queue' })().config.queue).toEqual({ maxWaitMs: 5000, maxQueued: 1000 });
    expect(build({ mode: 'queue', maxWait: '250ms', maxQueued: 0 })().config.queue).toEqual({
      maxWaitMs: 250,
      maxQueued: 0,
    });
    expect(build({ mode: 'queue', maxWait: 0 })().config.queue?.maxWaitMs).toBe(0);
  });

  it('a window algorithm with mode queue is a SluiceConfigError saying a window has no future slot', () => {
    for (const algorithm of ['fixed-window', 'sliding-window', 'sliding-log']) {
      expect(build({ mode: 'queue', algorithm })).toThrow(SluiceConfigError);
      expect(build({ mode: 'queue', algorithm })).toThrow(/no future slot/);
    }
    expect(build({ mode: 'queue', algorithm: 'gcra' })).not.toThrow();
  });

  it('maxWait unparsable or negative, maxQueued not an integer >= 0: named errors', () => {
    for (const maxWait of ['soon', -1, '-1s', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(build({ mode: 'queue', maxWait })).toThrow(/maxWait/);
    }
    for (const maxQueued of [-1, 1.5, '10']) {
      expect(build({ mode: 'queue', maxQueued })).toThrow(/maxQueued/);
    }
  });

  it('maxWait and maxQueued mean nothing without mode queue', () => {
    expect(build({ maxWait: '1s' })().config.queue).toBeUndefined();
    expect(build({ mode: 'shadow', maxQueued: 5 })().config.queue).toBeUndefined();
  });
});
