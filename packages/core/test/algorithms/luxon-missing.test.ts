// luxon is an optional peer dependency of @sluice/core: an app without it installed runs
// everything but calendar quotas, and the first calendar quota says what to install.
// (Its own file: a module registry where luxon was loaded keeps it across doMock.)
jest.mock('luxon', () => {
  throw new Error("Cannot find module 'luxon'");
});

describe('without luxon installed', () => {
  const proc = globalThis.process as { getBuiltinModule?: unknown };
  const getBuiltinModule = proc.getBuiltinModule;
  // Node's own loader (process.getBuiltinModule('module')) would find the workspace's luxon.
  beforeAll(() => {
    proc.getBuiltinModule = undefined;
  });
  afterAll(() => {
    proc.getBuiltinModule = getBuiltinModule;
  });

  it('the core loads and builds other limits; the first calendar quota is a SluiceConfigError saying npm install luxon', () => {
    const core = require('../../src/index.js') as typeof import('../../src/index.js');
    expect(core.Limit.perMinute(5).maxAttempts).toBe(5);
    const build = () => core.Limit.perCalendarMonth(10, { timeZone: 'Europe/Paris' });
    expect(build).toThrow(core.SluiceConfigError);
    expect(build).toThrow(expect.objectContaining({ option: 'luxon' }));
    expect(build).toThrow(/optional peer dependency.*npm install luxon/);
  });
});
