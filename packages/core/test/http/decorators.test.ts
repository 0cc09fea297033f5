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

describe('decorators on classes and bound copies', () => {
  const Wrap = (calls: string[]) =>
    methodDecorator(
      (method) =>
        function (this: unknown, ...args: unknown[]) {
          calls.push(method.name);
          return method.apply(this, args);
        },
    );

  it('a bound copy of a @SkipThrottle() method keeps the mark (users.health.bind(users))', () => {
    class Users {
      name = 'users';
      @SkipThrottle()
      health() {
        return this.name;
      }
    }
    const users = new Users();
    const bound = users.health.bind(users);
    expect(isThrottleSkipped(bound)).toBe(true);
    expect(bound()).toBe('users');
    // A copy of the copy, and a copy with bound arguments, too.
    expect(isThrottleSkipped(bound.bind(null))).toBe(true);
    const withArgs = function (this: unknown, a: number, b: number) {
      return a + b;
    };
    const marked = (SkipThrottle() as (f: typeof withArgs, c: unknown) => typeof withArgs)(
      withArgs,
      { kind: 'method', name: 'withArgs' },
    );
    const partial = marked.bind(null, 1);
    expect(isThrottleSkipped(partial)).toBe(true);
    expect(partial(2)).toBe(3);
    // An unmarked method's bound copy stays unmarked.
    expect(isThrottleSkipped(users.constructor.prototype.constructor.bind(null))).toBe(false);
  });

  it('@SkipThrottle() on a class (TC39) marks every method of it', () => {
    @SkipThrottle()
    class Probes {
      live() {
        return 'live';
      }
      ready() {
        return 'ready';
      }
    }
    const p = new Probes();
    expect([isThrottleSkipped(p.live), isThrottleSkipped(p.ready)]).toEqual([true, true]);
    expect(isThrottleSkipped(p.live.bind(p))).toBe(true);
    expect([p.live(), p.ready()]).toEqual(['live', 'ready']);
  });

  it('a wrapping decorator on a class (TC39) wraps every method, keeping marks of methods', () => {
    const calls: string[] = [];
    @Wrap(calls)
    class Users {
      @SkipThrottle()
      health() {
        return 'ok';
      }
      show(id: number) {
        return id;
      }
    }
    const u = new Users();
    expect([u.health(), u.show(7)]).toEqual(['ok', 7]);
    expect(calls).toEqual(['health', 'show']);
    expect([isThrottleSkipped(u.health), isThrottleSkipped(u.show)]).toEqual([true, false]);
  });

  it('both work on a class in the legacy (experimentalDecorators) form: called with the class alone', () => {
    class Probes {
      live() {
        return 'live';
      }
    }
    const legacy = SkipThrottle() as unknown as (
      target: typeof Probes,
    ) => typeof Probes | undefined;
    expect(legacy(Probes)).toBeUndefined();
    expect(isThrottleSkipped(new Probes().live)).toBe(true);
    const calls: string[] = [];
    class Users {
      show() {
        return 'show';
      }
    }
    (Wrap(calls) as unknown as (target: typeof Users) => void)(Users);
    expect(new Users().show()).toBe('show');
    expect(calls).toEqual(['show']);
  });
});
