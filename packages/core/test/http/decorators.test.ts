import { isThrottleSkipped, methodDecorator } from '../../src/http/index.js';
import { SkipThrottle } from '../../src/index.js';

describe('method decorators (TC39 form)', () => {
  it('@SkipThrottle() marks the method; a wrapping decorator replaces it', () => {
    const calls: string[] = [];
    const Logged = () =>
      methodDecorator(
        (method) =>
          function (this: unknown, ...args: unknown[]) {
            calls.push('before');
            return method.apply(this, args);
          },
      );
    class Controller {
      @SkipThrottle()
      health() {
        return 'ok';
      }
      @Logged()
      show(id: number) {
        return id * 2;
      }
      plain() {
        return 1;
      }
    }
    const c = new Controller();
    expect(isThrottleSkipped(c.health)).toBe(true);
    expect(isThrottleSkipped(c.plain)).toBe(false);
    expect(c.show(21)).toBe(42);
    expect(calls).toEqual(['before']);
  });

  it('also works in the legacy (experimentalDecorators) form', () => {
    const descriptor: PropertyDescriptor = { value: () => 'x', writable: true, configurable: true };
    const result = (
      SkipThrottle() as (t: object, k: string, d: PropertyDescriptor) => PropertyDescriptor
    )({}, 'm', descriptor);
    expect(isThrottleSkipped(result.value)).toBe(true);
  });

  it('a wrapping decorator keeps a @SkipThrottle() mark, in either order', () => {
    const Wrap = () =>
      methodDecorator(
        (method) =>
          (...args: unknown[]) =>
            method(...args),
      );
    class Controller {
      @Wrap()
      @SkipThrottle()
      a() {
        return 'a';
      }
      @SkipThrottle()
      @Wrap()
      b() {
        return 'b';
      }
      @Wrap()
      c() {
        return 'c';
      }
    }
    const c = new Controller();
    expect([isThrottleSkipped(c.a), isThrottleSkipped(c.b), isThrottleSkipped(c.c)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([c.a(), c.b(), c.c()]).toEqual(['a', 'b', 'c']);
  });
});
