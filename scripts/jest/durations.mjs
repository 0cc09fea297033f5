// The list scripts/jest/sequencer.cjs orders `pnpm test` by: each test file's seconds in a
// measured run, longest first. From one or more jest `--json` result files (a later file's
// figure for a file replaces an earlier one's):
//
//   pnpm test --json --outputFile=/tmp/jest.json          # or .ci/run's primary run
//   node scripts/jest/durations.mjs write /tmp/jest.json    # rewrites durations.json
//   node scripts/jest/durations.mjs check /tmp/jest.json    # slow files the list misses
//   node scripts/jest/durations.mjs simulate /tmp/jest.json # both orders on 2 workers
//
// `simulate` replays the measured seconds through two workers that each take the next file
// when free (as jest's do) in jest's fresh-clone order (file size, largest first) and in the
// sequencer's, and prints each order's makespan: what the order alone changes, with every
// file's own time as measured (two files side by side slow each other; that is in the figures).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..', '..');
const LIST = path.join(HERE, 'durations.json');
/** A file at or past this many seconds is listed; the rest run in jest's order after. */
const LISTED_FROM_S = 5;
const WORKERS = 2;

/** file (from the root, `/`) -> seconds, from jest --json result files. */
function measured(files) {
  const seconds = new Map();
  for (const file of files) {
    for (const t of JSON.parse(readFileSync(file, 'utf8')).testResults) {
      const name = path.relative(ROOT, t.name).split(path.sep).join('/');
      seconds.set(name, (t.endTime - t.startTime) / 1000);
    }
  }
  return seconds;
}

/** The makespan of `order` ([file, seconds]) on WORKERS workers taking the next when free. */
function makespan(order) {
  const free = Array(WORKERS).fill(0);
  const lastOn = free.map(() => ({ file: '', start: 0 }));
  for (const [file, s] of order) {
    const w = free.indexOf(Math.min(...free));
    lastOn[w] = { file, start: free[w] };
    free[w] += s;
  }
  const end = Math.max(...free);
  return { seconds: end, last: lastOn[free.indexOf(end)] };
}

const [command, ...inputs] = process.argv.slice(2);
if (!['write', 'check', 'simulate'].includes(command) || inputs.length === 0) {
  console.error(
    'usage: node scripts/jest/durations.mjs write|check|simulate <jest --json file>...',
  );
  process.exit(2);
}
const seconds = measured(inputs);

if (command === 'write') {
  const slow = [...seconds].filter(([, s]) => s >= LISTED_FROM_S).sort((a, b) => b[1] - a[1]);
  const list = {
    about:
      `Seconds of each test file that took >= ${LISTED_FROM_S} s in a measured run; ` +
      'scripts/jest/sequencer.cjs starts these first, longest first. ' +
      'Refresh: node scripts/jest/durations.mjs write <pnpm test --json result>.',
    seconds: Object.fromEntries(slow.map(([f, s]) => [f, Math.round(s * 10) / 10])),
  };
  writeFileSync(LIST, `${JSON.stringify(list, null, 2)}\n`);
  console.log(`durations.json: ${slow.length} files of ${seconds.size} at >= ${LISTED_FROM_S} s`);
} else if (command === 'check') {
  // Never fails: a slow machine or a new slow file must not turn CI red; it says so.
  const listed = JSON.parse(readFileSync(LIST, 'utf8')).seconds;
  for (const [file, s] of seconds) {
    if (s >= 4 * LISTED_FROM_S && !(file in listed))
      console.log(
        `ci: warning: ${file} took ${s.toFixed(1)} s and is not in scripts/jest/durations.json (it may start last: refresh the list, see CONTRIBUTING.md)`,
      );
  }
} else {
  const listed = JSON.parse(readFileSync(LIST, 'utf8')).seconds;
  const size = (file) => statSync(path.join(ROOT, file)).size;
  const all = [...seconds];
  const bySize = [...all].sort((a, b) => size(b[0]) - size(a[0]));
  const known = (f) => listed[f] ?? -1;
  const sequenced = [
    ...bySize.filter(([f]) => f in listed).sort((a, b) => known(b[0]) - known(a[0])),
    ...bySize.filter(([f]) => !(f in listed)),
  ];
  const total = all.reduce((sum, [, s]) => sum + s, 0);
  console.log(`${all.length} files, ${total.toFixed(0)} s of work on ${WORKERS} workers`);
  console.log(`lower bound: ${Math.max(total / WORKERS, ...all.map(([, s]) => s)).toFixed(0)} s`);
  for (const [name, order] of [
    ['jest, by file size', bySize],
    ['sequencer.cjs', sequenced],
  ]) {
    const { seconds: s, last } = makespan(order);
    console.log(
      `${name}: ${s.toFixed(0)} s (the last to end: ${last.file}, started at ${last.start.toFixed(0)} s)`,
    );
  }
}
