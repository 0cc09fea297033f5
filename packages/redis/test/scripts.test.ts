import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS_SCRIPT } from '../src/operations/operations.lua.js';
import { fetchScript } from '../src/prefetch/fetch.lua.js';
import { atMostLua } from '../src/twins/at-most.lua.js';
import { FIXED_WINDOW } from '../src/twins/fixed-window.lua.js';
import { GCRA } from '../src/twins/gcra.lua.js';
import type { LuaTwin } from '../src/twins/lua-common.js';
import { multiScript } from '../src/twins/lua-multi.js';
import { penaltyTwin } from '../src/twins/penalty.lua.js';
import { STORE_TWINS } from '../src/twins/registry.js';
import { SLIDING_LOG } from '../src/twins/sliding-log.lua.js';
import { SLIDING_WINDOW } from '../src/twins/sliding-window.lua.js';

// Every script the store sends, as Redis receives it after template assembly, is held in
// test/scripts/*.lua: a change to a twin or to the shared prelude shows in review as a Lua
// diff of these files. SLUICE_UPDATE_SCRIPTS=1 rewrites them.
const DIR = join(__dirname, 'scripts');
const TWINS: LuaTwin[] = [GCRA, FIXED_WINDOW, SLIDING_WINDOW, SLIDING_LOG];
const ALL = [...TWINS, ...TWINS.map(penaltyTwin)];

function assembled(): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const twin of ALL) {
    scripts.set(`${twin.name}.single.lua`, twin.single.source);
    scripts.set(`${twin.name}.batch.lua`, twin.batch.source);
    // consumeAtMost's script (a penalty twin's asks its inner function for a 0 grant).
    scripts.set(`${twin.name}.at-most.lua`, atMostLua(twin, twin.inner));
  }
  scripts.set('all-or-nothing.lua', multiScript(ALL).source);
  // The prefetch script, over every twin the store runs (calendar quotas included).
  scripts.set('prefetch.lua', fetchScript(STORE_TWINS).source);
  // RedisStore#operations: entries, their ends, the version and its PUBLISH.
  scripts.set('operations.lua', OPERATIONS_SCRIPT.source);
  return scripts;
}

describe('assembled Lua scripts', () => {
  const scripts = assembled();
  if (process.env.SLUICE_UPDATE_SCRIPTS === '1') {
    mkdirSync(DIR, { recursive: true });
    for (const [name, source] of scripts) writeFileSync(join(DIR, name), source);
  }

  it('test/scripts holds exactly the scripts the store sends', () => {
    const held = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.lua')) : [];
    expect(held.sort()).toEqual([...scripts.keys()].sort());
  });

  it.each([...scripts.keys()])('%s is the script held in test/scripts', (name) => {
    expect(scripts.get(name)).toBe(readFileSync(join(DIR, name), 'utf8'));
  });
});
