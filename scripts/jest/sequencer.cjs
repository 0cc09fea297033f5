// The order jest starts the test files in (`testSequencer` in jest.config.ts, so the quick and
// Node-major configs too). Two workers take the next file as each frees up, so the run ends
// when the last long file does: a 40 s file started in the last minute is the run's tail.
// Without a cache of its own last run (a fresh clone, CI) jest orders by file size, and the
// conformance suites (a few hundred bytes that start servers and processes for 30-70 s) came
// last. Here: files that failed last time first (jest's rule, from its cache), then the files
// of durations.json, longest first (longest-processing-time-first list scheduling), then every
// other file in jest's own order. A file missing from the list still runs, in jest's order.
// Refresh the list from a `pnpm test --json` result: node scripts/jest/durations.mjs.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const DURATIONS = require('./durations.json');

const ROOT = path.join(__dirname, '..', '..');

/** A test file's path from the repository root, with `/`, as durations.json names it. */
const relative = (file) => path.relative(ROOT, file).split(path.sep).join('/');

class SlowFirstSequencer extends Sequencer {
  /** The listed seconds, or undefined for a file durations.json does not name. */
  listed(test) {
    return DURATIONS.seconds[relative(test.path)];
  }

  sort(tests) {
    const ordered = super.sort([...tests]);
    const failed = ordered.filter((t) => this.hasFailed(t));
    const rest = ordered.filter((t) => !this.hasFailed(t));
    const listed = rest
      .filter((t) => this.listed(t) !== undefined)
      .sort((a, b) => this.listed(b) - this.listed(a));
    return [...failed, ...listed, ...rest.filter((t) => this.listed(t) === undefined)];
  }
}

module.exports = SlowFirstSequencer;
