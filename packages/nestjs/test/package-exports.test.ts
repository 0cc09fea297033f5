import { describePackageExports } from '@sluice/test-kit';

// @sluice/nestjs (and the @sluice/core it requires) built with tsup and loaded by name
// through its exports map, with require() and with import(): the module, the guard and the
// decorators as Nest reads them.
describePackageExports({
  name: 'nestjs',
  functions: ['SluiceModule', 'SluiceGuard', 'Throttle', 'SkipThrottle', 'Limit'],
  probe: `
    await load('reflect-metadata');
    const module = pkg.SluiceModule.forRoot({ limit: '1/min' });
    let unknown;
    try { pkg.SluiceModule.forRoot({ ttl: 1 }); } catch (e) { unknown = e.message; }
    class Users { show() {} }
    const d = Object.getOwnPropertyDescriptor(Users.prototype, 'show');
    pkg.Throttle('5/min')(Users.prototype, 'show', d);
    return {
      module: module.module === pkg.SluiceModule,
      exported: module.exports.includes(pkg.SluiceGuard),
      unknown,
      throttles: Reflect.getMetadata('sluice:throttle', Users.prototype.show).length,
    };
  `,
  check(result) {
    expect(result).toMatchObject({ module: true, exported: true, throttles: 1 });
    expect(result.unknown).toMatch(/unknown option "ttl"/);
  },
});
