import { loadLuxon, provideLuxon } from '../../src/algorithms/luxon.js';
import { SluiceConfigError } from '../../src/common/errors.js';
import { Limit } from '../../src/index.js';

describe('luxon is loaded only when a calendar quota is built', () => {
  it('importing the core loads no luxon; the first calendar quota does', () => {
    let loads = 0;
    jest.isolateModules(() => {
      jest.doMock('luxon', () => {
        loads++;
        return jest.requireActual('luxon');
      });
      const core = require('../../src/index.js') as typeof import('../../src/index.js');
      require('../../src/http/index.js');
      core.Limit.perMinute(5);
      core.Limit.perCalendarDay(5); // throttle strings, limits: no luxon until a calendar one
      expect(loads).toBe(1);
    });
    jest.isolateModules(() => {
      jest.doMock('luxon', () => {
        loads++;
        return jest.requireActual('luxon');
      });
      require('../../src/index.js');
      require('../../src/http/index.js');
    });
    expect(loads).toBe(1);
  });

  it('building a calendar quota loads it (and the quota computes its edges)', () => {
    const limit = Limit.perCalendarDay(10, { timeZone: 'Europe/Paris' });
    expect(limit.calendar?.timeZone).toBe('Europe/Paris');
    expect(typeof loadLuxon().DateTime.fromMillis).toBe('function');
  });

  it('provideLuxon refuses what is not luxon, naming the option', () => {
    expect(() => provideLuxon({})).toThrow(SluiceConfigError);
    expect(() => provideLuxon({})).toThrow(/"luxon"/);
  });
});
