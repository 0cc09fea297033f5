// Every `pnpm bench:*` script loads as the ES modules it runs as (tsx, not jest's CommonJS):
// `--help` imports the script and all it imports, then prints its options. A module that only
// works under jest (`__dirname` at the top level of a test-kit file did once) fails here.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

jest.setTimeout(120_000);

const BENCH = path.resolve(__dirname, '..');
const scripts = (
  JSON.parse(readFileSync(path.join(BENCH, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;
/** Each distinct script file, with the node flags its package.json line gives. */
const files = [
  ...new Map(
    Object.values(scripts).map((line) => {
      const words = line.split(' ');
      const file = words.find((w) => w.startsWith('src/'))!;
      const flags = words.slice(1, words.indexOf(file));
      return [file, flags] as const;
    }),
  ),
];

it.each(files.map(([file, flags]) => ({ file, flags })))(
  '$file loads as ESM and prints its options',
  async ({ file, flags }) => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...flags, file, '--help'],
        { cwd: BENCH },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out).toMatch(/^usage: /m);
  },
);
